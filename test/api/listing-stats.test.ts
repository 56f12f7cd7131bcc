import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { api, request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/eventually.ts';
import { insertFollowers } from '../helpers/followers.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { WebClient } from '../helpers/web.ts';

// Launch analytics from real requests: page views over HTTP (a bot and a script
// not counted), clicks through /go/{slug}, referrer hosts, votes and followers; get_listing_stats
// over REST and MCP with bad input and another owner's listing; the CSV and the page without a browser.

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

let env: TestEnv;
let call: ReturnType<typeof mcpParity>;
test.before(async () => {
  // One trusted proxy: each request names its client in X-Forwarded-For (views count once per client and hour).
  env = await startTestEnv(import.meta.url, { TRUST_PROXY_HOPS: '1' });
  call = mcpParity(env);
});
test.after.always(async () => {
  await call?.close();
  await env?.close();
});

const db = () => env.services.db;
const slugOf = async (id: number) => (await db()('listings').where({ id }).first('slug'))!.slug;
let visitors = 0;
/** Each call from a new client address, unless `headers` names one. */
const newClient = () => ({ 'x-forwarded-for': `198.51.${100 + Math.floor(++visitors / 250)}.${visitors % 250}` });
const view = (slug: string, headers: Record<string, string> = {}) =>
  request(env, 'GET', `/listings/${slug}`, { headers: { ...newClient(), ...headers } });
const go = (slug: string, headers: Record<string, string> = {}) =>
  request(env, 'GET', `/go/${slug}`, { headers: { ...newClient(), ...headers } });

async function ownedListing(name: string) {
  const owner = await env.user(['account:read']);
  const id = await insertLiveListing(db(), {
    name,
    ownerId: owner.userId,
    url: `https://${name.toLowerCase().replace(/\W+/g, '')}.example.com/start?lang=en`,
  });
  return { owner, id, slug: await slugOf(id) };
}

test('views by people, clicks through /go/{slug}, referrer hosts, votes and followers are counted; bots and scripts are not', async (t) => {
  const { owner, id, slug } = await ownedListing('Counted Rockets');
  const page = await view(slug, { 'user-agent': BROWSER, referer: 'https://News.Example.org/item?id=42&secret=1' });
  t.is(page.status, 200);
  // The listing page sends its website link through /go/{slug}.
  t.regex(page.text, new RegExp(`<a href="/go/${slug}" rel="noopener">countedrockets.example.com/start\\?lang=en</a>`));
  await view(slug, { 'user-agent': BROWSER, referer: 'https://news.example.org/other' });
  await view(slug, { 'user-agent': BROWSER, referer: `${env.baseUrl}/` });
  await view(slug, { 'user-agent': BROWSER });
  await view(slug, { 'user-agent': BROWSER, referer: 'android-app://com.example/' });
  // Not people: a search engine's crawler and a request without a User-Agent.
  t.is((await view(slug, { 'user-agent': GOOGLEBOT, referer: 'https://bots.example.net/' })).status, 200);
  t.is((await view(slug)).status, 200);
  // Nor a browser fetching ahead, nor a HEAD request.
  t.is((await view(slug, { 'user-agent': BROWSER, 'sec-purpose': 'prefetch;prerender' })).status, 200);
  t.is((await view(slug, { 'user-agent': BROWSER, purpose: 'prefetch' })).status, 200);
  t.is((await request(env, 'HEAD', `/listings/${slug}`, { headers: { 'user-agent': BROWSER } })).status, 200);

  const through = await go(slug, { 'user-agent': BROWSER });
  t.is(through.status, 302);
  t.is(through.headers.get('cache-control'), 'no-store');
  const target = new URL(through.headers.get('location')!);
  t.is(`${target.origin}${target.pathname}`, 'https://countedrockets.example.com/start');
  t.is(target.searchParams.get('lang'), 'en');
  t.is(target.searchParams.get('ref'), new URL(env.baseUrl).host);
  await go(slug, { 'user-agent': BROWSER });
  t.is((await go(slug, { 'user-agent': GOOGLEBOT })).status, 302);

  // Votes from the votes table (one last week, outside the launch week) and followers.
  const voters = await db()('users')
    .insert([1, 2, 3].map((i) => ({ email: `stats-voter-${id}-${i}@example.com` })))
    .returning('id');
  await db()('votes').insert([
    { listing_id: id, user_id: voters[0]!.id },
    { listing_id: id, user_id: voters[1]!.id },
    { listing_id: id, user_id: voters[2]!.id, created_at: new Date(Date.now() - 8 * 86_400_000) },
  ]);
  await insertFollowers(db(), id, 2);

  // The buffer reaches the database on its own, within its second.
  const stats = await eventually('the counts to be stored', async () => {
    const res = await api(env, 'GET', `/me/listings/${id}/stats?granularity=hour`, { key: owner.key });
    return res.body.totals?.clicks === 2 && res.body;
  });
  t.deepEqual(stats.totals, { views: 5, clicks: 2, votes: 2, followers: 2 });
  t.deepEqual(stats.top_referrers, [
    { host: 'news.example.org', views: 2 },
    { host: '127.0.0.1', views: 1 },
  ]);
  t.is(stats.granularity, 'hour');
  t.is(stats.series.length, 7 * 24, 'the launch week by hour');
  const monday = new Date(stats.from);
  t.is(monday.getUTCDay(), 1);
  t.is(stats.from, `${monday.toISOString().slice(0, 10)}T00:00:00.000Z`);
  // Everything happened in this hour (or the one before, when the test ran across an hour's end).
  const busy = stats.series.filter((p: { views: number; clicks: number }) => p.views + p.clicks > 0);
  const hourMs = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  t.true(busy.length >= 1 && busy.every((p: { at: string }) => hourMs - Date.parse(p.at) <= 3_600_000), JSON.stringify(busy));
  const sum = (key: string) => stats.series.reduce((s: number, p: Record<string, number>) => s + p[key]!, 0);
  t.deepEqual([sum('views'), sum('clicks'), sum('votes'), sum('followers')], [5, 2, 2, 2]);

  const daily = await api(env, 'GET', `/me/listings/${id}/stats`, { key: owner.key });
  t.is(daily.status, 200);
  t.is(daily.body.granularity, 'day');
  t.is(daily.body.series.length, 7);
  t.deepEqual(daily.body.totals, stats.totals);
  // A wider range takes in last week's vote.
  const wide = await api(
    env,
    'GET',
    `/me/listings/${id}/stats?from=${new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10)}&to=${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)}`,
    {
      key: owner.key,
    },
  );
  t.is(wide.status, 200, JSON.stringify(wide.body));
  t.is(wide.body.totals.votes, 3);
  t.is(wide.body.series.length, 11);
  // One end given: the week from it, or up to it.
  const after = await api(env, 'GET', `/me/listings/${id}/stats?from=2026-01-05`, { key: owner.key });
  t.like(after.body, { from: '2026-01-05T00:00:00.000Z', to: '2026-01-12T00:00:00.000Z' });
  const before = await api(env, 'GET', `/me/listings/${id}/stats?to=2026-01-05T10:30:00%2B01:00&granularity=hour`, { key: owner.key });
  t.like(before.body, { from: '2025-12-29T09:00:00.000Z', to: '2026-01-05T10:00:00.000Z' });
  t.is(before.body.series.length, 7 * 24 + 1);
});

test('get_listing_stats answers alike over REST and MCP; bad ranges, granularity and another owner’s listing are refused', async (t) => {
  const { owner, id, slug } = await ownedListing('Parity Stats');
  await view(slug, { 'user-agent': BROWSER, referer: 'https://launch.example.com/' });
  await env.services.pageCounters.flush();
  const args = { listing_id: id, granularity: 'day' };
  const mcp = await call.viaMcp(owner.key, 'get_listing_stats', args);
  const rest = await call.viaRest(owner.key, 'get_listing_stats', args);
  t.false(mcp.error, JSON.stringify(mcp.body));
  t.is(rest.status, 200);
  t.deepEqual(mcp.body, rest.body);
  t.like(rest.body.totals, { views: 1 });

  const bad: [Record<string, unknown>, string][] = [
    [{ granularity: 'minute' }, 'granularity'],
    [{ from: 'yesterday' }, 'from'],
    [{ to: '2026-02-30' }, 'to'],
    [{ from: '2026-11-10', to: '2026-11-09' }, 'to'],
    [{ from: '2026-11-10', to: '2026-11-10' }, 'to'],
    [{ from: '2026-01-01', to: '2026-03-01', granularity: 'hour' }, 'to'],
    [{ from: '2024-01-01', to: '2026-03-01' }, 'to'],
  ];
  for (const [input, path] of bad) {
    const r = await call.viaRest(owner.key, 'get_listing_stats', { listing_id: id, ...input });
    t.is(r.status, 400, JSON.stringify(input));
    t.like(r.body, { code: 'validation_failed' }, JSON.stringify(input));
    t.true(
      r.body.errors.some((e: { path: string }) => e.path === path),
      `${JSON.stringify(input)}: ${JSON.stringify(r.body.errors)}`,
    );
    t.truthy(r.body.errors[0].message);
    const m = await call.viaMcp(owner.key, 'get_listing_stats', { listing_id: id, ...input });
    t.true(m.error);
    t.like(m.body, { code: 'validation_failed', status: 400 });
  }

  const stranger = await env.user(['account:read']);
  t.like((await call.viaRest(stranger.key, 'get_listing_stats', { listing_id: id })).body, { code: 'not_found', status: 404 });
  t.like(await call.viaMcp(stranger.key, 'get_listing_stats', { listing_id: id }), {
    error: true,
    body: { code: 'not_found', status: 404 },
  });
  t.is((await api(env, 'GET', `/me/listings/${id}/stats`)).status, 401);
  const writer = await env.user(['listings:write']);
  t.like((await api(env, 'GET', `/me/listings/${id}/stats`, { key: writer.key })).body, { code: 'insufficient_scope', status: 403 });
});

test('one client counts one view and one click an hour, whatever User-Agent it sends', async (t) => {
  const { owner, id, slug } = await ownedListing('Once Rockets');
  const client = { 'x-forwarded-for': '203.0.113.40' };
  for (let i = 0; i < 40; i++) {
    const agent = `${BROWSER} Variant/${i}`;
    t.is((await view(slug, { ...client, 'user-agent': agent })).status, 200);
    t.is((await go(slug, { ...client, 'user-agent': agent })).status, 302);
  }
  // Another client is another view.
  await view(slug, { 'x-forwarded-for': '203.0.113.41', 'user-agent': BROWSER });
  await env.services.pageCounters.flush();
  const stats = await api(env, 'GET', `/me/listings/${id}/stats`, { key: owner.key });
  t.like(stats.body.totals, { views: 2, clicks: 1 });
  // Across flushes (and api processes, which share page_count_seen) the same client still counts once.
  await view(slug, { ...client, 'user-agent': BROWSER });
  await env.services.pageCounters.flush();
  t.like((await api(env, 'GET', `/me/listings/${id}/stats`, { key: owner.key })).body.totals, { views: 2 });
  // The address itself is not stored: only keyed hashes.
  const seen = await db()('page_count_seen').select('seen');
  t.true(seen.length >= 3);
  t.false(seen.some((r) => r.seen.toString('latin1').includes('203.0.113')));
});

test('/go/{slug} of an unknown or too long slug is a page that says so', async (t) => {
  for (const slug of ['no-such-listing', 'x'.repeat(200)]) {
    const res = await request(env, 'GET', `/go/${slug}`, { headers: { 'user-agent': BROWSER } });
    t.is(res.status, 404);
    t.regex(res.headers.get('content-type')!, /text\/html/);
    t.regex(res.text, /<h1>Not found<\/h1>\s*<p>Listing &quot;x*[a-z-]*&quot; was not found\.<\/p>/);
  }
});

test('the owner’s stats page and its CSV; another owner gets "not found"', async (t) => {
  const email = `stats-page-${Date.now()}@example.com`;
  const user = await createVerifiedUser(db(), email, 'stats page password');
  const id = await insertLiveListing(db(), { name: 'Charted Co', ownerId: user.id });
  const slug = await slugOf(id);
  for (let i = 0; i < 3; i++) await view(slug, { 'user-agent': BROWSER, referer: 'https://blog.example.com/post' });
  await go(slug, { 'user-agent': BROWSER });
  await env.services.pageCounters.flush();

  const web = new WebClient(env.baseUrl);
  t.is((await web.signIn(email, 'stats page password')).status, 303);
  const page = await web.get(`/account/listings/${id}/stats`);
  t.is(page.status, 200);
  t.regex(
    page.$('main p.lead').text().replace(/\s+/g, ' '),
    /Charted Co had 3 page views from people, 1 click through to its website, 0 votes and 0 new followers\./,
  );
  t.is(page.$('figure.chart svg[role=img]').length, 4);
  t.is(page.$('table tbody tr').length, 7);
  t.deepEqual(
    page
      .$('[data-referrer]')
      .map((_, e) => page.$(e).text())
      .get(),
    ['blog.example.com'],
  );

  const csv = await web.get(`/account/listings/${id}/stats.csv`);
  t.is(csv.status, 200);
  t.regex(csv.headers.get('content-type')!, /^text\/csv/);
  t.regex(csv.headers.get('content-disposition')!, /attachment; filename="listing-\d+-stats\.csv"/);
  const [header, ...rows] = csv.text.split('\r\n').map((line) => line.split(','));
  t.deepEqual(header, ['hour_utc', 'views', 'clicks', 'votes', 'followers']);
  t.is(rows.length, 7 * 24);
  for (const row of rows) {
    t.is(row.length, 5);
    t.false(Number.isNaN(Date.parse(row[0]!)));
  }
  const sum = (col: number) => rows.reduce((s, r) => s + Number(r[col]), 0);
  t.deepEqual([sum(1), sum(2), sum(3), sum(4)], [3, 1, 0, 0]);

  const other = await createVerifiedUser(db(), `stats-other-${Date.now()}@example.com`, 'another stats password');
  const stranger = new WebClient(env.baseUrl);
  await stranger.signIn(other.email, 'another stats password');
  t.is((await stranger.get(`/account/listings/${id}/stats`)).status, 404);
  t.is((await stranger.get(`/account/listings/${id}/stats.csv`)).status, 404);
  t.is((await stranger.get('/account/listings/abc/stats')).status, 404);
  // Signed out: to the sign-in page and back.
  const signedOut = await new WebClient(env.baseUrl).get(`/account/listings/${id}/stats`);
  t.is(signedOut.status, 303);
  t.regex(signedOut.location!, /^\/signin\?return_to=/);
});
