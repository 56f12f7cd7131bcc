import test from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { badgeHtml, draftListing, insertCompleteProfile } from '../helpers/launches.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { serve, type TestSite } from '../helpers/site.ts';

// The launch operations (badges, the free route, the queue) through MCP: the same results, problems and ownership as REST.

let env: TestEnv;
let site: TestSite;
let calls: ReturnType<typeof mcpParity>;
const badges = new Set<string>();

test.before(async () => {
  env = await startTestEnv(import.meta.url);
  calls = mcpParity(env);
  site = await serve({
    '/': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end([...badges].map((s) => badgeHtml(env.baseUrl, s)).join('')),
  });
});
test.after.always(async () => {
  await calls?.close();
  await site?.close();
  await env?.close();
});

const db = () => env.services.db;

/** Masks what differs between two identical fixtures: ids, times and the random tag of names and slugs. */
function normalize(value: unknown, slug: string, key = ''): unknown {
  const tag = slug.split('-').at(-1)!;
  if (Array.isArray(value)) return value.map((v) => normalize(v, slug, key));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v, slug, k)]));
  // Both listings queue in the same week, one after the other.
  if (value !== null && (/(^|_)id$/.test(key) || key === 'queue_position')) return '<id>';
  if (typeof value !== 'string') return value;
  if (/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(value)) return '<time>';
  // The card image's version hashes the name, which carries the tag.
  return value
    .replaceAll(tag, '<tag>')
    .replace(/\/\d+(?=[/?#]|$)/g, '/<id>')
    .replace(/\?v=[0-9a-f]+$/, '?v=<version>');
}

async function fixture(opts: { profile: boolean; badge: boolean }) {
  const user = await env.user();
  if (opts.profile) await insertCompleteProfile(db(), user.userId);
  const listing = await draftListing(db(), user.userId, site.url, 'Twin');
  if (opts.badge) badges.add(listing.slug);
  return { user, listing };
}

test('choose_free_listing, recheck_badge and get_badges: the tool gives what the route gives', async (t) => {
  for (const setup of [
    { profile: false, badge: false },
    { profile: true, badge: false },
    { profile: true, badge: true },
  ]) {
    const [a, b] = await Promise.all([fixture(setup), fixture(setup)]);
    const sequence: [string, (f: typeof a) => Record<string, unknown>][] = [
      ['choose_free_listing', (f) => ({ listing_id: f.listing.id })],
      ['get_badges', (f) => ({ listing_id: f.listing.id })],
      ['recheck_badge', (f) => ({ listing_id: f.listing.id })],
      ['get_my_listing', (f) => ({ listing_id: f.listing.id })],
    ];
    for (const [name, args] of sequence) {
      const mcp = await calls.viaMcp(a.user.key, name, args(a));
      const rest = await calls.viaRest(b.user.key, name, args(b));
      const label = `${name} ${JSON.stringify(setup)}`;
      t.false(mcp.error, `${label}: ${JSON.stringify(mcp.body)}`);
      t.is(rest.status, 200, label);
      t.deepEqual(normalize(mcp.body, a.listing.slug), normalize(rest.body, b.listing.slug), label);
    }
    const status = (await calls.viaMcp(a.user.key, 'get_my_listing', { listing_id: a.listing.id })).body.status;
    t.is(status, !setup.profile ? 'awaiting_profile' : !setup.badge ? 'awaiting_badge' : 'scheduled');
  }
});

test('list_launch_weeks needs no sign-in and matches REST', async (t) => {
  const mcp = await calls.viaMcp(undefined, 'list_launch_weeks', {});
  const rest = await api(env, 'GET', '/launch-weeks');
  t.false(mcp.error);
  t.deepEqual(mcp.body, rest.body);
  t.is(mcp.body.items.length, 12);
});

test('problems are those of REST: another owner’s listing, bad input, the check limit', async (t) => {
  const { user, listing } = await fixture({ profile: true, badge: false });
  const other = await env.user();
  const cases: [string, string, Record<string, unknown>, number, string][] = [
    ['get_badges', other.key, { listing_id: listing.id }, 404, 'not_found'],
    ['recheck_badge', other.key, { listing_id: listing.id }, 404, 'not_found'],
    ['choose_free_listing', other.key, { listing_id: listing.id }, 404, 'not_found'],
    ['choose_free_listing', user.key, { listing_id: 0 }, 400, 'validation_failed'],
    ['recheck_badge', user.key, { listing_id: listing.id, badge_url: 'ftp://x.example/' }, 400, 'validation_failed'],
    ['recheck_badge', user.key, { listing_id: listing.id, badge_url: 'https://other.example/' }, 422, 'badge_url_off_domain'],
    ['choose_free_listing', user.key, { listing_id: listing.id, plan: 'paid' }, 400, 'validation_failed'],
  ];
  for (const [name, key, args, status, code] of cases) {
    const label = `${name} ${JSON.stringify(args)}`;
    const mcp = await calls.viaMcp(key, name, args);
    const rest = await calls.viaRest(key, name, args);
    t.true(mcp.error, label);
    t.like(mcp.body, { status, code }, label);
    const { request_id: _a, ...fromTool } = mcp.body;
    const { request_id: _b, ...fromRoute } = rest.body;
    t.deepEqual(fromTool, fromRoute, label);
  }
  t.is((await db()('badge_checks').where({ listing_id: listing.id })).length, 0);
  t.false((await calls.viaMcp(user.key, 'recheck_badge', { listing_id: listing.id })).error);
  const limited = await calls.viaMcp(user.key, 'recheck_badge', { listing_id: listing.id });
  t.like(limited, { error: true, body: { status: 429, code: 'rate_limited' } });
});
