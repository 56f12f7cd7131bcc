import test from 'ava';
import { castVote } from '../../src/domain/ranking/votes.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { eventually } from '../helpers/eventually.ts';

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  const db = env.services.db;
  await insertLiveListing(db, { name: 'Acme Analytics', headline: 'Product analytics for small teams', votes: 5 });
  await insertLiveListing(db, {
    name: 'Bolt Invoices',
    headline: 'Send invoices and get paid faster',
    summary: 'Invoicing for freelancers',
    votes: 9,
  });
  await insertLiveListing(db, { name: 'Cobalt Monitoring', headline: 'Uptime monitoring with analytics dashboards', votes: 1 });
  await insertLiveListing(db, { name: 'Makers Only Tool', headline: 'Analytics on the other site', site: 'makers' });
  const draftId = await insertLiveListing(db, { name: 'Hidden Draft Analytics' });
  await db('listings').where({ id: draftId }).update({ status: 'draft' });
});
test.after.always(() => env?.close());

test('search_listings ranks full-text matches of live listings of this site only', async (t) => {
  const res = await api(env, 'GET', '/listings?q=analytics');
  t.is(res.status, 200);
  const names = res.body.items.map((l: { name: string }) => l.name);
  t.deepEqual(names.sort(), ['Acme Analytics', 'Cobalt Monitoring']);
  t.is(names.includes('Hidden Draft Analytics'), false);
  t.is(res.body.total, 2);
  t.is(res.body.page, 1);
  t.is(res.body.per_page, 20);
  // The name match (weight A) outranks a headline-only match.
  const ranked = (await api(env, 'GET', '/listings?q=analytics')).body.items.map((l: { name: string }) => l.name);
  t.is(ranked[0], 'Acme Analytics');
});

test('search_listings stems english words and corrects misspelt words', async (t) => {
  const stemmed = await api(env, 'GET', '/listings?q=invoice');
  t.deepEqual(
    stemmed.body.items.map((l: { name: string }) => l.name),
    ['Bolt Invoices'],
  );
  const typo = await api(env, 'GET', '/listings?q=Cobalt%20Monitorng');
  t.is(typo.status, 200);
  t.is(typo.body.items[0]?.name, 'Cobalt Monitoring');
});

test('search_listings matches word prefixes, the web address and web-search syntax', async (t) => {
  const names = async (q: string) =>
    (await api(env, 'GET', `/listings?q=${encodeURIComponent(q)}`)).body.items.map((l: { name: string }) => l.name);
  t.deepEqual(await names('bo'), ['Bolt Invoices']);
  t.deepEqual(await names('BOL INV'), ['Bolt Invoices'], 'every word as a prefix, any case');
  t.deepEqual(await names('coba'), ['Cobalt Monitoring']);
  // insertLiveListing puts each listing at https://{name}.example.com/
  t.deepEqual(await names('cobaltmonitoring'), ['Cobalt Monitoring']);
  t.deepEqual(await names('boltinvoices.example.com'), ['Bolt Invoices']);
  t.deepEqual(await names('analytics -acme'), ['Cobalt Monitoring'], 'exclusions as in web search');
  t.deepEqual(await names('"uptime monitoring"'), ['Cobalt Monitoring'], 'phrases as in web search');
  t.deepEqual(await names('invoices or uptime'), ['Bolt Invoices', 'Cobalt Monitoring'], 'or as in web search');
  t.deepEqual(await names('!!! ???'), [], 'punctuation only finds nothing');
  t.deepEqual(await names('-acme'), [], 'exclusions alone find nothing');
});

test.serial('search_listings ranks name matches before headline-only matches whatever the votes', async (t) => {
  const db = env.services.db;
  // On the other site: tests of a file run concurrently, and others count this site's listings.
  const [site, makers] = ['makers', { headers: { host: 'makers.localhost' } }] as const;
  const many = await insertLiveListing(db, {
    name: 'Zebra Board',
    headline: 'Kanban boards for quokka teams',
    votes: 500,
    site,
    url: 'https://zebra.example.net/',
  });
  const few = await insertLiveListing(db, { name: 'Quokka Planner', headline: 'Plans', votes: 0, site, url: 'https://qp.example.net/' });
  try {
    const res = await api(env, 'GET', '/listings?q=quokka', makers);
    t.deepEqual(
      res.body.items.map((l: { id: number }) => l.id),
      [few, many],
    );
    t.is(res.body.total_capped, false);
  } finally {
    await db('listings').whereIn('id', [many, few]).update({ status: 'unlisted' });
  }
});

test('search_listings without q lists by votes and paginates', async (t) => {
  const first = await api(env, 'GET', '/listings?per_page=2');
  t.deepEqual(
    first.body.items.map((l: { name: string }) => l.name),
    ['Bolt Invoices', 'Acme Analytics'],
  );
  t.is(first.body.total, 3);
  const second = await api(env, 'GET', '/listings?per_page=2&page=2');
  t.deepEqual(
    second.body.items.map((l: { name: string }) => l.name),
    ['Cobalt Monitoring'],
  );
  t.is(second.body.total, 3);
  const beyond = await api(env, 'GET', '/listings?per_page=2&page=5&q=analytics');
  t.deepEqual(beyond.body.items, []);
  t.is(beyond.body.total, 2);
});

test.serial('search_listings serves the first 1,000 results and says when the total (counted to 100) is capped', async (t) => {
  const db = env.services.db;
  const site = await db('sites').where({ key: 'makers' }).first('id');
  await db.raw(
    `INSERT INTO listings (site_id, slug, company_domain, name, url, status, votes)
     SELECT ?, 'cap-' || g, 'cap' || g || '.example.org', 'Capybara ' || g, 'https://cap' || g || '.example.org/', 'live', g % 7
     FROM generate_series(1, 1005) g`,
    [site!.id],
  );
  const makers = { headers: { host: 'makers.localhost' } };
  const first = await api(env, 'GET', '/listings?q=capybara&per_page=100', makers);
  t.is(first.status, 200);
  t.is(first.body.total, 100);
  t.is(first.body.total_capped, true);
  t.is(first.body.items.length, 100);
  const votes = first.body.items.map((l: { votes: number }) => l.votes);
  t.deepEqual(
    votes,
    [...votes].sort((a, b) => b - a),
    'most votes first within a tier',
  );
  const last = await api(env, 'GET', '/listings?q=capybara&per_page=100&page=10', makers);
  t.is(last.body.items.length, 100);
  const past = await api(env, 'GET', '/listings?q=capybara&per_page=100&page=11', makers);
  t.deepEqual(past.body.items, []);
  t.is(past.body.total_capped, true);
  const all = await api(env, 'GET', '/listings?per_page=1', makers);
  t.is(all.body.total_capped, true, 'the no-query listing is capped the same way');
  await db('listings').where('slug', 'like', 'cap-%').update({ status: 'unlisted' });
});

test('the request host selects the site', async (t) => {
  const res = await api(env, 'GET', '/listings?q=analytics', { headers: { host: 'makers.localhost' } });
  t.deepEqual(
    res.body.items.map((l: { name: string }) => l.name),
    ['Makers Only Tool'],
  );
});

for (const [query, path] of [
  ['per_page=0', 'per_page'],
  ['per_page=1000', 'per_page'],
  ['per_page=abc', 'per_page'],
  ['page=0', 'page'],
  ['page=-1', 'page'],
  [`q=${'x'.repeat(10_000)}`, 'q'],
] as const) {
  test(`search_listings refuses ${query.slice(0, 20)} with a problem naming ${path}`, async (t) => {
    const res = await api(env, 'GET', `/listings?${query}`);
    t.is(res.status, 400);
    t.is(res.headers.get('content-type'), 'application/problem+json');
    t.is(res.body.code, 'validation_failed');
    t.is(res.body.status, 400);
    t.deepEqual(
      res.body.errors.map((e: { path: string }) => e.path),
      [path],
    );
    t.truthy(res.body.request_id);
    t.is(JSON.stringify(res.body).includes('    at '), false, 'no stack trace');
  });
}

test('list_products reads current prices from the database within the cache TTL', async (t) => {
  const before = await api(env, 'GET', '/products');
  t.is(before.status, 200);
  const keys = before.body.items.map((p: { key: string }) => p.key);
  t.deepEqual(keys, ['launch', 'featured', 'categories', 'billboard', 'unlock_section']);
  t.true(before.body.items.every((p: { needs_listing: boolean; price_cents: number }) => p.needs_listing && p.price_cents > 0));
  await env.services.db('products').where({ key: 'launch' }).update({ price_cents: 12345 });
  const changed = Date.now();
  const launchPrice = async () =>
    (await api(env, 'GET', '/products')).body.items.find((p: { key: string }) => p.key === 'launch').price_cents;
  const deadline = changed + env.services.config.cache.catalogTtlMs + 1_000;
  await eventually('the new price', async () => (await launchPrice()) === 12345, { timeoutMs: deadline - Date.now() });
  t.true(Date.now() <= deadline, 'the new price shows within the TTL');
});

test('list_interview_questions returns the seeded questions in order', async (t) => {
  const res = await api(env, 'GET', '/interview-questions');
  t.is(res.status, 200);
  t.true(res.body.items.length >= 5);
  t.deepEqual(
    res.body.items.map((q: { position: number }) => q.position),
    res.body.items.map((_: unknown, i: number) => i + 1),
  );
});

test('get_community_leaderboard ranks this week’s live listings by votes cast this week', async (t) => {
  const db = env.services.db;
  const empty = await api(env, 'GET', '/leaderboards/community-weekly', { headers: { host: 'makers.localhost' } });
  t.is(empty.status, 200);
  t.deepEqual(
    empty.body.items.map((i: { name: string }) => i.name),
    ['Makers Only Tool'],
  );
  const [bolt] = await db('listings').where({ name: 'Cobalt Monitoring' }).pluck('id');
  const voters = await db('users')
    .insert([1, 2].map((n) => ({ email: `voter${n}@example.com`, email_verified_at: db.fn.now() })))
    .returning('id');
  for (const voter of voters) await castVote(db, voter.id, bolt, new Date());
  const res = await api(env, 'GET', '/leaderboards/community-weekly');
  t.is(res.body.items[0].name, 'Cobalt Monitoring');
  t.is(res.body.items[0].score, 2);
  t.is(res.body.items[0].rank, 1);
  t.regex(res.body.week, /^\d{4}-W\d{2}$/);
  t.truthy(res.body.formula);
});

test('list_sites names the site keys', async (t) => {
  const res = await api(env, 'GET', '/sites');
  t.deepEqual(
    res.body.items.map((s: { key: string }) => s.key),
    ['main', 'makers'],
  );
});

test('health and readiness report the database and Temporal', async (t) => {
  t.is((await fetch(`${env.baseUrl}/healthz`)).status, 200);
  const ready = await fetch(`${env.baseUrl}/readyz`);
  t.is(ready.status, 200);
  t.deepEqual(await ready.json(), { status: 'ok', checks: { database: 'ok', temporal: 'ok' } });
});

test('unknown routes and methods are problems, with a request id', async (t) => {
  const unknown = await api(env, 'GET', '/nope');
  t.is(unknown.status, 404);
  t.is(unknown.body.code, 'not_found');
  t.truthy(unknown.headers.get('x-request-id'));
  const method = await api(env, 'DELETE', '/products');
  t.is(method.status, 405);
  t.is(method.body.code, 'method_not_allowed');
  const echoed = await api(env, 'GET', '/products', { headers: { 'x-request-id': 'abc-123' } });
  t.is(echoed.headers.get('x-request-id'), 'abc-123');
});
