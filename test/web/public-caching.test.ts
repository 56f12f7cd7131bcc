import test from 'ava';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { voters } from '../helpers/votes.ts';
import { WebClient } from '../helpers/web.ts';

/**
 * What each kind of page tells caches, without a proxy: a public page sent to a visitor without a
 * session is `public` for shared caches (s-maxage, stale-while-revalidate), with a weak ETag that
 * If-None-Match turns into a 304, Last-Modified and Vary: Cookie, Accept-Encoding, and sets no
 * cookie; every page with a session, a form, a notice or a POST is `private, no-store`. This file
 * keeps nothing in the process (PAGE_CACHE_TTL_MS=0: each visitor's page is rendered and hashed
 * afresh); test/web/cdn-proxy.test.ts runs with the kept pages behind nginx.
 */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { PAGE_CACHE_TTL_MS: '0', PUBLIC_PAGE_S_MAXAGE: '45', PUBLIC_PAGE_STALE_SECONDS: '90' });
});
test.after.always(() => env?.close());

const PUBLIC = 'public, max-age=0, s-maxage=45, stale-while-revalidate=90';
const PRIVATE = 'private, no-store';
const visitor = () => new WebClient(env.baseUrl);
const varies = (res: { headers: Headers }) => (res.headers.get('vary') ?? '').toLowerCase().split(/\s*,\s*/);

test.serial('a visitor’s public pages are public for shared caches, with validators, Vary and no cookie', async (t) => {
  await insertLiveListing(env.services.db, { name: 'Cached Rocket', url: 'https://cached-rocket.example.com/' });
  for (const path of ['/', '/listings/cached-rocket', '/launches', '/categories', '/best', '/?q=rocket']) {
    const res = await visitor().get(path);
    t.is(res.status, 200, path);
    t.is(res.headers.get('cache-control'), PUBLIC, path);
    t.regex(res.headers.get('etag') ?? '', /^W\/"[A-Za-z0-9_-]{27}"$/, path);
    t.false(Number.isNaN(Date.parse(res.headers.get('last-modified') ?? '')), path);
    // Rendered afresh, the page is sent as it is, whatever the client accepts (the kept copies are
    // sent compressed: Vary names Accept-Encoding there too, test/web/cdn-proxy.test.ts).
    t.true(varies(res).includes('cookie'), `${path}: ${res.headers.get('vary')}`);
    t.deepEqual(res.headers.getSetCookie(), [], `${path} sets no cookie`);
    t.is(res.$('input[name=_csrf]').length, 0, `${path} holds no CSRF token`);
  }
  // The sitemap keeps the Cache-Control it sets itself, with the validators.
  const sitemap = await visitor().get('/sitemap.xml');
  t.is(sitemap.headers.get('cache-control'), 'public, max-age=300');
  t.truthy(sitemap.headers.get('etag'));
});

test.serial('If-None-Match with the page’s ETag is a 304 without a body; another ETag or a changed page is a 200', async (t) => {
  await insertLiveListing(env.services.db, { name: 'Validated', url: 'https://validated.example.com/' });
  const first = await visitor().get('/listings/validated');
  const etag = first.headers.get('etag')!;
  const again = await visitor().get('/listings/validated', { 'if-none-match': etag });
  t.is(again.status, 304);
  t.is(again.text, '');
  t.is(again.headers.get('etag'), etag);
  t.is(again.headers.get('cache-control'), PUBLIC);
  t.true(varies(again).includes('cookie'));
  t.is(
    (await visitor().get('/listings/validated', { 'if-none-match': `"other", ${etag.slice(2)}` })).status,
    304,
    'strong form, in a list',
  );
  t.is((await visitor().get('/listings/validated', { 'if-none-match': 'W/"other"' })).status, 200);
  // If-Modified-Since (against the time of the render) counts only without If-None-Match.
  const later = new Date(Date.parse(first.headers.get('last-modified')!) + 3_600_000).toUTCString();
  t.is((await visitor().get('/listings/validated', { 'if-modified-since': later })).status, 304);
  t.is((await visitor().get('/listings/validated', { 'if-modified-since': 'Sat, 01 Jan 2000 00:00:00 GMT' })).status, 200);
  t.is((await visitor().get('/listings/validated', { 'if-modified-since': later, 'if-none-match': 'W/"other"' })).status, 200);

  await env.services.db('listings').where({ slug: 'validated' }).update({ headline: 'A new headline' });
  const changed = await visitor().get('/listings/validated', { 'if-none-match': etag });
  t.is(changed.status, 200, 'the page changed: a new ETag');
  t.not(changed.headers.get('etag'), etag);
});

test.serial('pages with a session, forms, notices, POST answers, /account, /staff and checkout are private, no-store', async (t) => {
  await insertLiveListing(env.services.db, { name: 'Private Eyes', url: 'https://private-eyes.example.com/' });
  const [voter] = await voters(env.services.db, env.baseUrl, 1);
  for (const path of ['/', '/listings/private-eyes', '/launches', '/account']) {
    const res = await voter!.client.get(path);
    t.is(res.headers.get('cache-control'), PRIVATE, `signed in: ${path}`);
    t.is(res.headers.get('etag'), null, `signed in: ${path}`);
  }
  const page = await voter!.client.get('/listings/private-eyes');
  const _csrf = page.$('form[action="/listings/private-eyes/vote"] input[name=_csrf]').val() as string;
  t.truthy(_csrf, 'the signed-in page holds a CSRF token');
  const vote = await voter!.client.post('/listings/private-eyes/vote', { _csrf });
  t.is(vote.status, 303);
  t.is(vote.headers.get('cache-control'), PRIVATE, 'a POST answer');

  // A visitor's form pages set a CSRF cookie: private.
  for (const path of ['/signin', '/signup']) {
    const res = await visitor().get(path);
    t.is(res.headers.get('cache-control'), PRIVATE, path);
    t.true(res.headers.getSetCookie().length > 0, `${path} sets the CSRF cookie`);
  }
  for (const path of ['/account', '/account/listings', '/staff', '/checkout/nope', '/listings/private-eyes?notice=voted']) {
    const res = await visitor().get(path);
    t.is(res.headers.get('cache-control'), PRIVATE, `visitor: ${path} (${res.status})`);
  }
  // A session cookie the service does not know: the visitor's page, but never for shared caches.
  const stale = await visitor().get('/listings/private-eyes', { cookie: 'ld_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
  t.is(stale.status, 200);
  t.is(stale.headers.get('cache-control'), PRIVATE);
});

test.serial('a visitor who holds a CSRF cookie from a form page still gets the public page, without a token', async (t) => {
  await insertLiveListing(env.services.db, { name: 'Cookie Holder', url: 'https://cookie-holder.example.com/' });
  const client = visitor();
  await client.get('/signin');
  t.true(client.cookies.size > 0, 'the sign-in form gave this browser a cookie');
  const res = await client.get('/listings/cookie-holder');
  t.is(res.headers.get('cache-control'), PUBLIC);
  t.deepEqual(res.headers.getSetCookie(), []);
  t.is(res.$('input[name=_csrf]').length, 0);
});
