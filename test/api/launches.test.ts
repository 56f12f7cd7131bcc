import test from 'ava';
import { earliestFreeWeek, isoWeekLabel, isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { api, request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { completeProfile } from '../helpers/founders.ts';
import { badgeHtml, draftListing, insertCompleteProfile, siteSettings } from '../helpers/launches.ts';
import { serve, type Handler, type TestSite } from '../helpers/site.ts';

// The free route over REST against a real owner website on loopback: badge checks, profile rules,
// slots under the week lock, the public queue, the badge image, and ownership on every operation.
// Serial: the tests change the main site's launch settings.

let env: TestEnv;
let site: TestSite;
/** Slugs whose badge the owner site shows on its homepage. */
const badges = new Set<string>();
const routes: Record<string, Handler> = {
  '/': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<html><body>${[...badges].map((slug) => badgeHtml(env.baseUrl, slug)).join('\n')}</body></html>`);
  },
  '/press': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(badgeHtml(env.baseUrl, 'press-only'));
  },
};

test.before(async () => {
  env = await startTestEnv(import.meta.url);
  site = await serve(routes);
});
test.after.always(async () => {
  await site?.close();
  await env?.close();
});

const db = () => env.services.db;
const checksOf = async (listingId: number) => Number((await db()('badge_checks').where({ listing_id: listingId }).count({ n: '*' }))[0]!.n);

async function owner(profile = true) {
  const user = await env.user();
  if (profile) await insertCompleteProfile(db(), user.userId);
  return user;
}

test.serial('incomplete profile → awaiting_profile, with every unmet rule and the badge in `missing`', async (t) => {
  const user = await owner(false);
  const listing = await draftListing(db(), user.userId, site.url);
  const res = await api(env, 'POST', `/me/listings/${listing.id}/free`, { key: user.key });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.like(res.body, { id: listing.id, plan: 'free', status: 'awaiting_profile', launch_week: null, queue_position: null });
  t.like(res.body.badge, { status: 'missing' });
  t.deepEqual(
    res.body.missing.map((m: { code: string }) => m.code),
    ['founder_profile_missing', 'badge_missing'],
  );
  t.like(res.body.missing[1], { operation: 'recheck_badge', url: `${env.baseUrl}/account/listings/${listing.id}` });
  t.is(await checksOf(listing.id), 1);
  const row = await db()('badge_checks').where({ listing_id: listing.id }).first();
  t.like(row, { trigger: 'choose_free', status: 'missing', url: site.url, http_status: 200 });
});

test.serial('a founder profile completed later moves an awaiting_profile listing on at once', async (t) => {
  await siteSettings(db(), 'main', { free_queue_weeks: 4, free_slots_per_week: 15 });
  const user = await owner(false);
  const listing = await draftListing(db(), user.userId, site.url);
  badges.add(listing.slug);
  const chosen = await api(env, 'POST', `/me/listings/${listing.id}/free`, { key: user.key });
  t.like(chosen.body, { status: 'awaiting_profile', badge: { status: 'present' } });
  t.true(chosen.body.missing.every((m: { code: string }) => m.code !== 'badge_missing'));
  await completeProfile(env, user.key);
  const view = await api(env, 'GET', `/me/listings/${listing.id}`, { key: user.key });
  const week = earliestFreeWeek(new Date(), 4);
  t.like(view.body, { status: 'scheduled', launch_week: isoWeekLabel(week), launch_week_start: week, missing: [] });
});

test.serial('badge missing → awaiting_badge; recheck_badge finds it → scheduled in the first week with room', async (t) => {
  await siteSettings(db(), 'main', { free_queue_weeks: 4, free_slots_per_week: 15 });
  const user = await owner();
  const listing = await draftListing(db(), user.userId, site.url);
  const chosen = await api(env, 'POST', `/me/listings/${listing.id}/free`, { key: user.key });
  t.like(chosen.body, { status: 'awaiting_badge', plan: 'free' });
  t.deepEqual(
    chosen.body.missing.map((m: { code: string }) => m.code),
    ['badge_missing'],
  );

  badges.add(listing.slug);
  const check = await api(env, 'POST', `/me/listings/${listing.id}/badge-check`, { key: user.key });
  t.is(check.status, 200, JSON.stringify(check.body));
  t.like(check.body, { status: 'present', missing_since: null });
  t.regex(check.body.detail, /Found a link/);

  const week = earliestFreeWeek(new Date(), 4);
  const view = await api(env, 'GET', `/me/listings/${listing.id}`, { key: user.key });
  // The ISO week label as list_launch_weeks names weeks, with its Monday beside it.
  t.like(view.body, {
    status: 'scheduled',
    launch_week: isoWeekLabel(week),
    launch_week_start: week,
    missing: [],
    badge: { status: 'present' },
  });
  t.regex(view.body.launch_week, /^\d{4}-W\d{2}$/);
  t.true(view.body.queue_position >= 1);
  const mine = await api(env, 'GET', '/me/listings', { key: user.key });
  t.like(mine.body.items[0], {
    id: listing.id,
    status: 'scheduled',
    launch_week: isoWeekLabel(week),
    launch_week_start: week,
    queue_position: view.body.queue_position,
  });
  const weeks = await api(env, 'GET', '/launch-weeks');
  const booked = weeks.body.items.find((w: { week_start: string }) => w.week_start === week);
  t.like(booked, { week: isoWeekLabel(week), free_slots: 15, state: 'open' });
  t.true(booked.free_taken >= 1);
  // Choosing again changes nothing and checks nothing.
  const again = await api(env, 'POST', `/me/listings/${listing.id}/free`, { key: user.key });
  t.like(again.body, { status: 'scheduled', launch_week_start: week, queue_position: view.body.queue_position });
  t.is(await checksOf(listing.id), 2);
});

test.serial('recheck_badge: once per 10 s per listing (429 with Retry-After), every check recorded', async (t) => {
  const user = await owner();
  const listing = await draftListing(db(), user.userId, site.url);
  const first = await api(env, 'POST', `/me/listings/${listing.id}/badge-check`, { key: user.key });
  t.is(first.status, 200);
  const parallel = await Promise.all([1, 2, 3].map(() => api(env, 'POST', `/me/listings/${listing.id}/badge-check`, { key: user.key })));
  for (const res of parallel) {
    t.is(res.status, 429);
    t.is(res.body.code, 'rate_limited');
    const wait = Number(res.headers.get('retry-after'));
    t.true(wait >= 1 && wait <= 10, String(wait));
  }
  t.is(await checksOf(listing.id), 1);
  // A refused call changes nothing, not even the page to check.
  const limited = await api(env, 'POST', `/me/listings/${listing.id}/badge-check`, {
    key: user.key,
    body: { badge_url: `${site.url}press` },
  });
  t.is(limited.status, 429);
  t.is((await api(env, 'GET', `/me/listings/${listing.id}/badges`, { key: user.key })).body.badge_url, null);
  // The limit is per listing: another listing of the same owner is checked at once.
  const other = await draftListing(db(), user.userId, site.url);
  t.is((await api(env, 'POST', `/me/listings/${other.id}/badge-check`, { key: user.key })).status, 200);
});

test.serial('badge_url: a page on the listing’s own domain is checked; another domain is refused', async (t) => {
  const user = await owner();
  const listing = await draftListing(db(), user.userId, site.url);
  const off = await api(env, 'POST', `/me/listings/${listing.id}/badge-check`, {
    key: user.key,
    body: { badge_url: 'https://elsewhere.example/badge' },
  });
  t.is(off.status, 422);
  t.is(off.body.code, 'badge_url_off_domain');
  t.is(await checksOf(listing.id), 0);
  const bad = await api(env, 'POST', `/me/listings/${listing.id}/badge-check`, {
    key: user.key,
    body: { badge_url: 'javascript:alert(1)' },
  });
  t.is(bad.status, 400);
  t.is(bad.body.errors[0].path, 'badge_url');

  const press = await api(env, 'POST', `/me/listings/${listing.id}/badge-check`, {
    key: user.key,
    body: { badge_url: `${site.url}press` },
  });
  t.is(press.status, 200);
  t.like(press.body, { status: 'missing' }); // /press shows another listing's badge
  const row = await db()('badge_checks').where({ listing_id: listing.id }).orderBy('id', 'desc').first();
  t.is(row!.url, `${site.url}press`);
  const badges = await api(env, 'GET', `/me/listings/${listing.id}/badges`, { key: user.key });
  t.is(badges.body.badge_url, `${site.url}press`);
});

test.serial('get_badges: snippets that link to the listing page around the badge image, and the last check', async (t) => {
  const user = await owner();
  const listing = await draftListing(db(), user.userId, site.url);
  const before = await api(env, 'GET', `/me/listings/${listing.id}/badges`, { key: user.key });
  t.is(before.status, 200);
  const target = `${env.baseUrl}/listings/${listing.slug}`;
  t.like(before.body, { listing_id: listing.id, target_url: target, badge_url: null, check: { status: 'unchecked', checked_at: null } });
  t.deepEqual(
    before.body.badges.map((b: { name: string }) => b.name),
    ['light', 'dark'],
  );
  for (const badge of before.body.badges) {
    t.is(badge.image_url, `${env.baseUrl}/badges/${listing.slug}.svg?theme=${badge.name}`);
    t.true(badge.html.startsWith(`<a href="${target}"><img src="${badge.image_url.replace('&', '&amp;')}"`), badge.html);
    t.true(badge.markdown.endsWith(`](${badge.image_url})](${target})`), badge.markdown);
  }
  // The snippet itself, pasted on the owner's page, passes the check.
  routes['/snippet'] = (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<p>${before.body.badges[1].html}</p>`);
  const check = await api(env, 'POST', `/me/listings/${listing.id}/badge-check`, {
    key: user.key,
    body: { badge_url: `${site.url}snippet` },
  });
  t.like(check.body, { status: 'present' });
  t.like((await api(env, 'GET', `/me/listings/${listing.id}/badges`, { key: user.key })).body.check, { status: 'present' });
});

test.serial('50 concurrent choose_free_listing calls never overbook a week', async (t) => {
  const perWeek = 7;
  await siteSettings(db(), 'main', { free_queue_weeks: 2, free_slots_per_week: perWeek });
  const owners = await Promise.all(Array.from({ length: 50 }, () => owner()));
  const listings = await Promise.all(owners.map((o) => draftListing(db(), o.userId, site.url, 'Rush')));
  for (const l of listings) badges.add(l.slug);
  const results = await Promise.all(listings.map((l, i) => api(env, 'POST', `/me/listings/${l.id}/free`, { key: owners[i]!.key })));
  t.deepEqual(
    results.map((r) => r.status),
    results.map(() => 200),
  );
  t.true(results.every((r) => r.body.status === 'scheduled'));

  const ids = listings.map((l) => l.id);
  const perWeekCounts: { week_start: string; n: number }[] = await db()('launch_slots')
    .whereIn('listing_id', ids)
    .groupBy('week_start')
    .orderBy('week_start')
    .select('week_start', db().raw('count(*)::int AS n'));
  const all: { n: number }[] = await db()('launch_slots')
    .where({ kind: 'free' })
    .groupBy('site_id', 'week_start')
    .select(db().raw('count(*)::int AS n'));
  t.true(
    all.every((w) => w.n <= perWeek),
    JSON.stringify(all),
  );
  t.is(
    perWeekCounts.reduce((sum, w) => sum + w.n, 0),
    50,
  );
  t.true(perWeekCounts[0]!.week_start >= earliestFreeWeek(new Date(), 2));
  // Positions are 1..n within each week, without gaps or doubles.
  const byWeek = new Map<string, number[]>();
  for (const r of results) byWeek.set(r.body.launch_week_start, [...(byWeek.get(r.body.launch_week_start) ?? []), r.body.queue_position]);
  for (const [week, positions] of byWeek) {
    const taken = (await db()('launch_slots').where({ week_start: week, kind: 'free' }).count({ n: '*' }))[0]!.n;
    t.deepEqual(
      [...positions].sort((a, b) => a - b),
      [...new Set(positions)].sort((a, b) => a - b),
      week,
    );
    t.true(Math.max(...positions) <= Number(taken));
  }
  const weeks = (await api(env, 'GET', '/launch-weeks')).body.items;
  for (const w of weeks) t.true(w.free_taken <= perWeek, w.week);
  t.true(weeks.some((w: { free_taken: number }) => w.free_taken === perWeek));
});

test.serial('list_launch_weeks: public, 12 weeks from this one, this week live', async (t) => {
  const res = await api(env, 'GET', '/launch-weeks');
  t.is(res.status, 200);
  t.is(res.body.items.length, 12);
  t.like(res.body.items[0], { week_start: isoWeekStart(new Date()), state: 'live' });
  t.is(res.body.items[0].week, isoWeekLabel(isoWeekStart(new Date())));
  for (const w of res.body.items.slice(1)) t.true(['open', 'full'].includes(w.state));
});

test.serial('another owner’s listing is not found on every owner operation; scopes are checked', async (t) => {
  const alice = await owner();
  const mallory = await owner();
  const listing = await draftListing(db(), alice.userId, site.url);
  const calls: [string, string, unknown?][] = [
    ['GET', `/me/listings/${listing.id}/badges`],
    ['POST', `/me/listings/${listing.id}/badge-check`, {}],
    ['POST', `/me/listings/${listing.id}/free`, {}],
    ['GET', `/me/listings/${listing.id}`],
  ];
  for (const [method, path, body] of calls) {
    const res = await api(env, method, path, { key: mallory.key, body });
    t.is(res.status, 404, `${method} ${path}`);
    t.is(res.body.code, 'not_found');
  }
  t.is(await checksOf(listing.id), 0);
  t.like(await db()('listings').where({ id: listing.id }).first(), { plan: null, status: 'draft' });

  const readOnly = await env.user(['account:read']);
  const refused = await api(env, 'POST', `/me/listings/${listing.id}/free`, { key: readOnly.key });
  t.is(refused.status, 403);
  t.is((await api(env, 'GET', `/me/listings/${listing.id}/badges`)).status, 401);
  for (const bad of ['0', '-1', 'abc', '99999999999']) {
    t.is((await api(env, 'POST', `/me/listings/${bad}/free`, { key: alice.key })).status, 400, bad);
  }
  t.is((await api(env, 'POST', `/me/listings/${listing.id}/free`, { key: alice.key, body: { week: '2026-12-07' } })).status, 400);
});

test.serial('the free plan is refused for paid, unlisted or live listings', async (t) => {
  const user = await owner();
  const paid = await draftListing(db(), user.userId, site.url);
  await db()('listings').where({ id: paid.id }).update({ plan: 'paid', status: 'scheduled' });
  const refusedPaid = await api(env, 'POST', `/me/listings/${paid.id}/free`, { key: user.key });
  t.is(refusedPaid.status, 409);
  t.is(refusedPaid.body.code, 'paid_launch_chosen');
  const unlisted = await draftListing(db(), user.userId, site.url);
  await db()('listings').where({ id: unlisted.id }).update({ status: 'unlisted' });
  const refusedUnlisted = await api(env, 'POST', `/me/listings/${unlisted.id}/free`, { key: user.key });
  t.is(refusedUnlisted.status, 409);
  t.is(refusedUnlisted.body.code, 'listing_not_draft');
  t.is((await checksOf(paid.id)) + (await checksOf(unlisted.id)), 0);
});

test.serial('an Idempotency-Key replays choose_free_listing', async (t) => {
  const user = await owner(false);
  const listing = await draftListing(db(), user.userId, site.url);
  const headers = { 'Idempotency-Key': `free-${listing.id}` };
  const first = await api(env, 'POST', `/me/listings/${listing.id}/free`, { key: user.key, headers });
  const second = await api(env, 'POST', `/me/listings/${listing.id}/free`, { key: user.key, headers });
  t.is(second.status, 200);
  t.is(second.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(second.body, first.body);
  t.is(await checksOf(listing.id), 1);
});

test.serial('/badges/{slug}.svg: public SVG with votes and rank, ETag and 304, themes', async (t) => {
  const user = await owner();
  const listing = await draftListing(db(), user.userId, site.url);
  await db()('listings')
    .where({ id: listing.id })
    .update({ status: 'live', launch_week: isoWeekStart(new Date()), votes: 3 });
  const light = await request(env, 'GET', `/badges/${listing.slug}.svg?theme=light`);
  t.is(light.status, 200);
  t.regex(light.headers.get('content-type')!, /^image\/svg\+xml/);
  t.regex(light.headers.get('cache-control')!, /public/);
  t.is(light.headers.get('access-control-allow-origin'), '*');
  t.is(light.headers.get('cross-origin-resource-policy'), 'cross-origin');
  t.regex(light.body, /▲ 3/);
  t.regex(light.body, /#\d+ this week/);
  const etag = light.headers.get('etag')!;
  t.truthy(etag);
  const cached = await request(env, 'GET', `/badges/${listing.slug}.svg?theme=light`, { headers: { 'if-none-match': etag } });
  t.is(cached.status, 304);
  t.is(cached.body, null);
  const dark = await request(env, 'GET', `/badges/${listing.slug}.svg?theme=dark`);
  t.not(dark.headers.get('etag'), etag);
  t.regex((await request(env, 'GET', `/badges/${listing.slug}.svg`)).body, /#ffffff/);

  await db()('listings').where({ id: listing.id }).update({ votes: 4 });
  const changed = await request(env, 'GET', `/badges/${listing.slug}.svg?theme=light`, { headers: { 'if-none-match': etag } });
  t.is(changed.status, 200);
  t.regex(changed.body, /▲ 4/);

  t.is((await request(env, 'GET', `/badges/${listing.slug}.svg?theme=neon`)).status, 400);
  t.is((await request(env, 'GET', '/badges/no-such-listing.svg')).status, 404);
  t.is((await request(env, 'GET', `/badges/${listing.slug}.png`)).status, 404);
  t.is((await request(env, 'GET', '/badges/%3Cscript%3E.svg')).status, 404);
});
