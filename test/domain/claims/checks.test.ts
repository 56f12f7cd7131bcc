import test from 'ava';
import { loadConfig } from '../../../src/config/config.ts';
import { checkDnsRecord } from '../../../src/domain/claims/dns-check.ts';
import { claimTargets, newClaimToken } from '../../../src/domain/claims/instructions.ts';
import { checkMetaTag, checkVerificationFile } from '../../../src/domain/claims/web-check.ts';
import { startTestDns, type TestDns } from '../../helpers/dns-server.ts';
import { html, redirect, serve, text, type TestSite } from '../../helpers/site.ts';

/** Each method against real servers on loopback: found, not found, and transient errors. */

const crawl = loadConfig({ CRAWL_ALLOW_PRIVATE_NETWORKS: 'true', CRAWL_TIMEOUT_MS: '3000' }).crawl;
const TOKEN = newClaimToken();
const NAME = '_listing-directory-challenge.acme.example';
const VALUE = `listing-directory-verification=${TOKEN}`;

let dns: TestDns;
let site: TestSite;
let other: TestSite;

test.before(async () => {
  dns = await startTestDns();
  other = await serve({ '/.well-known/listing-directory-verification.txt': text(TOKEN) });
  site = await serve({
    '/head': html(
      `<!doctype html><html><head><title>Acme</title><meta name="listing-directory-verification" content="${TOKEN}"></head><body><p>Hi</p></body></html>`,
    ),
    '/upper': html(`<html><head><META NAME="Listing-Directory-Verification" CONTENT=" ${TOKEN} "></head><body></body></html>`),
    '/comment': html(`<html><head><!-- <meta name="listing-directory-verification" content="${TOKEN}"> --></head><body>x</body></html>`),
    '/body': html(
      `<html><head><title>Acme</title></head><body><p>Welcome</p><meta name="listing-directory-verification" content="${TOKEN}"></body></html>`,
    ),
    '/other': html(`<html><head><meta name="listing-directory-verification" content="ldv_someone-else"></head></html>`),
    '/down': html('<h1>Down</h1>', 503),
    '/file-ws': text(`\n\n   ${TOKEN}  \r\n`),
    '/file-wrong': text('ldv_not-the-token'),
    '/hop': redirect('/file-ws', 302),
    '/away': redirect(`http://localhost:${other.port}/.well-known/listing-directory-verification.txt`, 302),
  });
});
test.after.always(async () => {
  await dns?.close();
  await site?.close();
  await other?.close();
});

const servers = () => ({ servers: [dns.server], timeoutMs: 1000 });

test('dns: the record among several TXT records is found', async (t) => {
  dns.zone.set(NAME, { txt: [['v=spf1 -all'], [VALUE], ['google-site-verification=abc']] });
  const r = await checkDnsRecord(NAME, TOKEN, servers());
  t.is(r.result, 'found', r.detail);
  t.true(dns.queries.includes(NAME));
});

test('dns: a record with another token is not found, and the detail shows what was seen', async (t) => {
  const name = `wrong.${NAME}`;
  dns.zone.set(name, { txt: [['listing-directory-verification=ldv_other'], ['v=spf1 -all']] });
  const r = await checkDnsRecord(name, TOKEN, servers());
  t.is(r.result, 'not_found');
  t.true(r.detail.includes('listing-directory-verification=ldv_other'), r.detail);
  t.true(r.detail.includes('v=spf1 -all'), r.detail);
});

test('dns: a value split over several strings is joined', async (t) => {
  const name = `split.${NAME}`;
  dns.zone.set(name, { txt: [[VALUE.slice(0, 20), VALUE.slice(20, 41), VALUE.slice(41)]] });
  t.is((await checkDnsRecord(name, TOKEN, servers())).result, 'found');
});

test('dns: a CNAME to another name holding the record counts', async (t) => {
  const name = `alias.${NAME}`;
  dns.zone.set(name, { cname: 'challenges.dns-provider.example' });
  dns.zone.set('challenges.dns-provider.example', { txt: [[VALUE]] });
  const r = await checkDnsRecord(name, TOKEN, servers());
  t.is(r.result, 'found', r.detail);
});

test('dns: SERVFAIL is an error, not a missing record; NXDOMAIN is not found', async (t) => {
  const name = `broken.${NAME}`;
  dns.zone.set(name, { rcode: 'SERVFAIL' });
  const failed = await checkDnsRecord(name, TOKEN, servers());
  t.is(failed.result, 'error', failed.detail);
  t.regex(failed.detail, /ESERVFAIL/);
  const missing = await checkDnsRecord(`missing.${NAME}`, TOKEN, servers());
  t.is(missing.result, 'not_found', missing.detail);
});

test('dns: a server that does not answer is an error', async (t) => {
  const silent = await startTestDns();
  await silent.close();
  const r = await checkDnsRecord(NAME, TOKEN, { servers: [silent.server], timeoutMs: 300 });
  t.is(r.result, 'error', r.detail);
});

test('meta: found in <head> (name and content compared the way HTML does)', async (t) => {
  t.is((await checkMetaTag(`${site.url}head`, TOKEN, crawl)).result, 'found');
  t.is((await checkMetaTag(`${site.url}upper`, TOKEN, crawl)).result, 'found');
});

test('meta: in a comment, in the body only, or with another token is not found', async (t) => {
  for (const path of ['comment', 'body']) {
    const r = await checkMetaTag(`${site.url}${path}`, TOKEN, crawl);
    t.is(r.result, 'not_found', path);
    t.regex(r.detail, /No listing-directory-verification meta tag in the <head>/);
  }
  const wrong = await checkMetaTag(`${site.url}other`, TOKEN, crawl);
  t.is(wrong.result, 'not_found');
  t.true(wrong.detail.includes('ldv_someone-else'));
});

test('meta and file: a 5xx is an error to retry, a 404 is not found', async (t) => {
  const down = await checkMetaTag(`${site.url}down`, TOKEN, crawl);
  t.is(down.result, 'error');
  t.regex(down.detail, /HTTP 503/);
  const missing = await checkVerificationFile(`${site.url}nothing.txt`, TOKEN, crawl);
  t.is(missing.result, 'not_found');
  t.regex(missing.detail, /HTTP 404/);
});

test('file: surrounding whitespace is ignored; other content is not found and quoted', async (t) => {
  t.is((await checkVerificationFile(`${site.url}file-ws`, TOKEN, crawl)).result, 'found');
  const wrong = await checkVerificationFile(`${site.url}file-wrong`, TOKEN, crawl);
  t.is(wrong.result, 'not_found');
  t.true(wrong.detail.includes('"ldv_not-the-token"'));
});

test('file: a redirect within the site is followed; to another domain it is refused', async (t) => {
  t.is((await checkVerificationFile(`${site.url}hop`, TOKEN, crawl)).result, 'found');
  const away = await checkVerificationFile(`${site.url}away`, TOKEN, crawl);
  t.is(away.result, 'not_found');
  t.regex(away.detail, /outside 127\.0\.0\.1/);
  t.false(other.requests.length > 0, 'the other domain was never asked');
});

test('file and meta: loopback is refused without CRAWL_ALLOW_PRIVATE_NETWORKS', async (t) => {
  const strict = loadConfig({}).crawl;
  const file = await checkVerificationFile(claimTargets(site.url).fileUrl, TOKEN, strict);
  t.is(file.result, 'not_found');
  t.regex(file.detail, /loopback/);
  const before = site.requests.length;
  t.is((await checkMetaTag(`${site.url}head`, TOKEN, strict)).result, 'not_found');
  t.is(site.requests.length, before, 'no request reached the server');
});
