import test from 'ava';
import { createBadgeAgent, fetchBadge } from '../../../src/domain/launches/badge-fetch.ts';
import { OPTIONS, closedPort, html, redirect, serve } from '../crawl/helpers.ts';

// The badge fetch against real HTTP servers on loopback: what is "missing" (the owner's doing)
// and what is "inconclusive" (their server's trouble, checked again later).
const target = { baseUrl: 'https://directory.example', slug: 'acme' };
const BADGE = '<a href="https://directory.example/listings/acme">Acme on Directory</a>';
const options = { ...OPTIONS, timeoutMs: 3000 };
const agent = createBadgeAgent(options);
test.after.always(() => agent.close());

test('badge on the homepage → present; removed → missing', async (t) => {
  const routes = { '/': html(`<p>${BADGE}</p>`) };
  const site = await serve(routes);
  t.teardown(() => site.close());
  const found = await fetchBadge(site.url, target, options, agent);
  t.like(found, { status: 'present', httpStatus: 200, finalUrl: site.url });
  routes['/'] = html('<p>No badge</p>');
  t.like(await fetchBadge(site.url, target, options, agent), { status: 'missing', httpStatus: 200 });
});

test('403, 429, 5xx, time-outs and refused connections are inconclusive, never missing', async (t) => {
  const slow: Parameters<typeof serve>[0][string] = (_req, res) => setTimeout(() => res.end(BADGE), 2000);
  const site = await serve({
    '/403': html('forbidden', 403),
    '/429': html('slow down', 429, { 'retry-after': '60' }),
    '/500': html('oops', 500),
    '/503': html('maintenance', 503),
    '/slow': slow,
  });
  t.teardown(() => site.close());
  for (const path of ['403', '429', '500', '503']) {
    const found = await fetchBadge(`${site.url}${path}`, target, options, agent);
    t.is(found.status, 'inconclusive', path);
    t.is(found.httpStatus, Number(path));
  }
  t.like(await fetchBadge(`${site.url}slow`, target, { ...options, timeoutMs: 500 }, agent), { status: 'inconclusive' });
  t.like(await fetchBadge(`http://127.0.0.1:${await closedPort()}/`, target, options, agent), { status: 'inconclusive' });
});

test('a page that is gone (404) or not HTML is missing', async (t) => {
  const site = await serve({ '/image': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end('png') });
  t.teardown(() => site.close());
  t.like(await fetchBadge(`${site.url}nope`, target, options, agent), { status: 'missing', httpStatus: 404 });
  t.like(await fetchBadge(`${site.url}image`, target, options, agent), { status: 'missing' });
});

test('redirects: followed within the domain (at most 5), never to another domain', async (t) => {
  const site = await serve({
    '/': redirect('/home'),
    '/home': html(BADGE),
    '/away': redirect('http://localhost:1/'),
    '/r1': redirect('/r2'),
    '/r2': redirect('/r3'),
    '/r3': redirect('/r4'),
    '/r4': redirect('/r5'),
    '/r5': redirect('/r6'),
    '/r6': redirect('/home'),
  });
  t.teardown(() => site.close());
  t.like(await fetchBadge(site.url, target, options, agent), { status: 'present', finalUrl: `${site.url}home` });
  const away = await fetchBadge(`${site.url}away`, target, options, agent);
  t.is(away.status, 'missing');
  t.regex(away.detail, /outside 127\.0\.0\.1/);
  const loop = await fetchBadge(`${site.url}r1`, target, options, agent);
  t.is(loop.status, 'missing');
  t.regex(loop.detail, /redirected more than 5 times/);
});

test('only the first 1 MB is read: a badge after it does not count, one before it does', async (t) => {
  const filler = `<p>${'x'.repeat(1_100_000)}</p>`;
  const site = await serve({ '/late': html(filler + BADGE), '/early': html(BADGE + filler) });
  t.teardown(() => site.close());
  t.like(await fetchBadge(`${site.url}late`, target, options, agent), { status: 'missing' });
  t.like(await fetchBadge(`${site.url}early`, target, options, agent), { status: 'present' });
});

test('the SSRF guard holds: loopback is refused unless private networks are allowed', async (t) => {
  const site = await serve({ '/': html(BADGE) });
  t.teardown(() => site.close());
  const guarded = createBadgeAgent({ allowPrivateNetworks: false });
  t.teardown(() => guarded.close());
  const refused = await fetchBadge(site.url, target, { ...options, allowPrivateNetworks: false }, guarded);
  t.is(refused.status, 'inconclusive');
  t.regex(refused.detail, /Refused to fetch/);
  t.is(site.requests.length, 0);
});
