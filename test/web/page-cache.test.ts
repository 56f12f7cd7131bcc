import { createHash } from 'node:crypto';
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import test from 'ava';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertDraftListing, insertLiveListing } from '../helpers/listings.ts';
import { voters } from '../helpers/votes.ts';
import { WebClient } from '../helpers/web.ts';

/**
 * The copies of public pages kept for visitors without a session (PAGE_CACHE_TTL_MS): visitors
 * share one render, signed-in people get a copy only with their own parts put in, a vote forgets the copies, error pages
 * and notices are never kept, and a kept copy is sent byte for byte (its CSP names its inline
 * style by hash, so it needs no per-response nonce), gzipped to clients that ask.
 */

let env: TestEnv;
test.before(async () => {
  // One trusted proxy: a request can name its client (views count once per client and hour).
  env = await startTestEnv(import.meta.url, { PAGE_CACHE_TTL_MS: '600000', TRUST_PROXY_HOPS: '1' });
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const visitor = () => new WebClient(env.baseUrl);
const votesOn = async (client: WebClient, path: string, slug: string) => (await client.get(path)).$(`#vote-${slug} [data-votes]`).text();

test.serial('visitors share a kept copy; signed-in people see the counts as they are; a vote forgets the copies', async (t) => {
  const id = await insertLiveListing(db(), { name: 'Kept Copy', url: 'https://kept.example.com/' });
  const bystander = await insertLiveListing(db(), { name: 'Bystander', url: 'https://bystander.example.com/', headline: 'Kept headline' });
  const [voter] = await voters(db(), env.baseUrl, 1);
  t.is((await visitor().get('/listings/bystander')).$('p.lead').text(), 'Kept headline');
  t.is(await votesOn(visitor(), '/listings/kept-copy', 'kept-copy'), '0');
  t.is(await votesOn(visitor(), '/', 'kept-copy'), '0');
  await db()('listings').where({ id }).update({ votes: 7, week_votes: 7 });
  t.is(await votesOn(visitor(), '/listings/kept-copy', 'kept-copy'), '0', 'the kept copy');
  t.is(await votesOn(visitor(), '/', 'kept-copy'), '0', 'the kept copy');
  t.is(await votesOn(visitor(), '/?utm_source=newsletter', 'kept-copy'), '0', 'a tracking parameter is the same page');
  // Signed in, the listing page is the kept copy with the person's parts in it: the same counts.
  t.is(await votesOn(voter!.client, '/listings/kept-copy', 'kept-copy'), '0', 'signed in: the kept copy, their parts put in');
  t.is(await votesOn(voter!.client, '/', 'kept-copy'), '0', 'signed in, the front page too');
  await visitor().get('/categories');
  const categories = await voter!.client.get('/categories');
  t.is(categories.$('form[action="/signout"]').length, 1, 'signed in, a route without a personal filler: rendered for them');
  t.false(categories.text.includes('<!--p:'));
  const cache = env.services.config.cache as { personalSlots: boolean };
  cache.personalSlots = false;
  t.is(await votesOn(voter!.client, '/listings/kept-copy', 'kept-copy'), '7', 'PERSONAL_PAGE_SLOTS=false: rendered for them');
  t.is(await votesOn(voter!.client, '/', 'kept-copy'), '7', 'PERSONAL_PAGE_SLOTS=false: rendered for them');
  cache.personalSlots = true;

  const page = await voter!.client.get('/listings/kept-copy');
  const _csrf = page.$('form[action="/listings/kept-copy/vote"] input[name=_csrf]').val() as string;
  t.is((await voter!.client.post('/listings/kept-copy/vote', { _csrf })).status, 303);
  t.is(await votesOn(visitor(), '/listings/kept-copy', 'kept-copy'), '8');
  t.is(await votesOn(visitor(), '/', 'kept-copy'), '8');
  await db()('listings').where({ id: bystander }).update({ headline: 'Changed headline' });
  t.is((await visitor().get('/listings/bystander')).$('p.lead').text(), 'Kept headline', 'a vote elsewhere leaves this page kept');

  // The same bytes for every visitor: gzipped for a client that asks, plain for one that does not.
  const plain = await fetch(`${env.baseUrl}/listings/kept-copy`, { headers: { 'accept-encoding': 'identity' } });
  t.is(plain.headers.get('content-encoding'), null);
  const html = await plain.text();
  const zipped = await rawGet('/listings/kept-copy', { 'accept-encoding': 'gzip' });
  t.is(zipped.headers['content-encoding'], 'gzip');
  t.regex(String(zipped.headers.vary), /accept-encoding/i);
  t.is(gunzipSync(zipped.body).toString(), html);
  t.is(zipped.headers['content-security-policy'], plain.headers.get('content-security-policy') ?? undefined);
  const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
  t.true(
    plain.headers.get('content-security-policy')!.includes(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`),
  );
  t.is(await (await fetch(`${env.baseUrl}/listings/kept-copy`, { headers: { 'accept-encoding': 'identity' } })).text(), html);
});

test.serial('error pages and notices are never kept', async (t) => {
  const id = await insertDraftListing(db(), { name: 'Not Yet', url: 'https://notyet.example.com/' });
  t.is((await visitor().get('/listings/not-yet')).status, 404);
  await db()('listings')
    .where({ id })
    .update({ status: 'live', launch_week: db().raw('current_date') });
  const live = await visitor().get('/listings/not-yet');
  t.is(live.status, 200);
  t.is(live.$('h1').text(), 'Not Yet');
  const noticed = await visitor().get('/listings/not-yet?notice=voted');
  t.is(noticed.$('.notice').text(), 'Your vote is counted.');
  t.is((await visitor().get('/listings/not-yet')).$('.notice').length, 0);
});

test.serial('a view served from the kept copy is counted like a fresh one', async (t) => {
  const id = await insertLiveListing(db(), { name: 'Counted Copy', url: 'https://counted.example.com/' });
  const browser = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36' };
  const first = await visitor().get('/listings/counted-copy', { ...browser, 'x-forwarded-for': '198.51.100.1' });
  await db()('listings').where({ id }).update({ headline: 'Changed after the copy was kept' });
  const second = await visitor().get('/listings/counted-copy', { ...browser, 'x-forwarded-for': '198.51.100.2' });
  t.is(second.$('p.lead').text(), first.$('p.lead').text(), 'the second view is the kept copy');
  t.is((await visitor().get('/listings/no-such-listing', browser)).status, 404);
  await env.services.pageCounters.flush();
  const [{ views }] = await db()('listing_hourly_counts').where({ listing_id: id }).sum({ views: 'views' });
  t.is(Number(views), 2);
});

test.serial('a kept page or sitemap answered in front of the routes has the headers and bytes of the routed answer', async (t) => {
  await insertLiveListing(db(), { name: 'Lane Copy', url: 'https://lane.example.com/' });
  for (const path of ['/listings/lane-copy', '/sitemap.xml']) {
    const [routed, laned] = [await rawGet(path, { 'accept-encoding': 'gzip' }), await rawGet(path, { 'accept-encoding': 'gzip' })];
    const { date: _d1, 'x-request-id': first, ...routedHeaders } = routed.headers;
    const { date: _d2, 'x-request-id': second, ...lanedHeaders } = laned.headers;
    t.deepEqual(lanedHeaders, routedHeaders, path);
    t.not(second, first, 'each answer has its own request id');
    t.deepEqual(laned.body, routed.body, path);
    t.is(routed.headers['content-encoding'], 'gzip');
    const plain = await fetch(`${env.baseUrl}${path}`, { headers: { 'accept-encoding': 'identity' } });
    t.is(plain.headers.get('content-encoding'), null);
    t.is(await plain.text(), gunzipSync(laned.body).toString());
    // What browsers send: gzip first, brotli later with the same weight; brotli is the smaller body.
    const br = await rawGet(path, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    t.is(br.headers['content-encoding'], 'br');
    t.is(brotliDecompressSync(br.body).toString(), gunzipSync(laned.body).toString());
    t.true(br.body.length < laned.body.length);
    t.is((await rawGet(path, { 'accept-encoding': 'br;q=0, gzip' })).headers['content-encoding'], 'gzip', 'refused brotli');
  }
  const sitemap = await rawGet('/sitemap.xml', { 'accept-encoding': 'gzip' });
  t.regex(String(sitemap.headers['content-type']), /^application\/xml/);
  t.is(sitemap.headers['cache-control'], 'public, max-age=300');
  t.true(gunzipSync(sitemap.body).toString().includes('/listings/lane-copy</loc>'));
});

/** A GET whose body is not decompressed (fetch would undo the gzip). */
function rawGet(path: string, headers: Record<string, string>): Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${env.baseUrl}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}
