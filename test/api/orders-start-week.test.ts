import test from 'ava';
import { isoWeekLabel, isoWeekStart, addWeeks } from '../../src/workflows/contracts/weeks.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { addDays } from '../../src/domain/orders/product-options.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { checkout, postWebhook, quote, succeededEvent, waitForOrder } from '../helpers/orders.ts';
import { siteSettings } from '../helpers/launches.ts';

/**
 * Week-based lines start in a week in which the listing is live: by default its launch week when
 * scheduled (or the week of a paid launch in the same order), else this week, next week when the
 * current one is short. The clock stands on a Wednesday noon a week from now (a checkout link
 * must not expire on the real clock) and moves only in serial tests.
 */

const WEDNESDAY = new Date(Date.parse(`${addDays(isoWeekStart(new Date()), 7 + 2)}T12:00:00Z`));
const THIS_WEEK = isoWeekStart(WEDNESDAY);
const clock = new ManualClock(WEDNESDAY);
let env: TestEnv;
let owner: { userId: number; key: string };

test.before(async () => {
  env = await startTestEnv(import.meta.url, {}, { clock });
  await env.startWorkers();
  owner = await env.user();
});
test.after.always(() => env?.close());
test.afterEach.always(() => clock.set(WEDNESDAY));

const db = () => env.services.db;

async function listing(status: 'live' | 'scheduled' | 'draft' | 'unlisted', launchWeek: string | null = null): Promise<number> {
  const id = await insertLiveListing(db(), { name: `Weeks ${Math.random().toString(36).slice(2, 8)}`, ownerId: owner.userId });
  await db()('listings')
    .where({ id })
    .update({ status, launch_week: launchWeek, live_at: status === 'live' ? db().fn.now() : null });
  return id;
}

const featured = (listingId: number, options: Record<string, unknown>) => ({ product: 'featured', listing_id: listingId, options });
const ask = (items: unknown[]) => quote(env, owner.key, { items, billing_country: 'US' });

test('a scheduled listing is featured from its launch week, and the placements land in those weeks', async (t) => {
  const launch = addWeeks(THIS_WEEK, 3);
  const id = await listing('scheduled', launch);
  const priced = await ask([featured(id, { weeks: 2 })]);
  t.is(priced.status, 200, JSON.stringify(priced.body));
  t.is(priced.body.lines[0].options.start_week, launch);
  t.deepEqual(priced.body.lines[0].weeks, [isoWeekLabel(launch), isoWeekLabel(addWeeks(launch, 1))]);

  const built = await checkout(env, owner.key, { items: [featured(id, { weeks: 2 })], billing_country: 'US' });
  t.is(built.status, 201, JSON.stringify(built.body));
  await postWebhook(env, succeededEvent(built.body.number, built.body.total_cents));
  const done = await waitForOrder(env, owner.key, built.body.number, ['fulfilled', 'attention']);
  t.is(done.status, 'fulfilled', JSON.stringify(done));
  const placed = await db()('featured_placements').where({ listing_id: id }).orderBy('week_start').pluck('week_start');
  t.deepEqual(placed, [launch, addWeeks(launch, 1)]);
  t.deepEqual(done.lines[0].weeks, [isoWeekLabel(launch), isoWeekLabel(addWeeks(launch, 1))]);

  // The receipt says which weeks the money bought, in words.
  const mail = await db()('mail_outbox')
    .where({ dedupe_key: `order-receipt:${built.body.number}` })
    .first();
  const words = (monday: string) => {
    const d = new Date(`${monday}T00:00:00Z`);
    return `${d.getUTCDate()} ${d.toLocaleString('en', { month: 'short', timeZone: 'UTC' })}`;
  };
  t.true(mail!.body_text.includes(`weeks of ${words(launch)}`), mail!.body_text);
  t.false(/\d{4}-W\d{2}/.test(mail!.body_text), mail!.body_text);
});

test('a week before the listing goes live is refused with 409 not_live_in_week naming the first week that works', async (t) => {
  const launch = addWeeks(THIS_WEEK, 4);
  const id = await listing('scheduled', launch);
  for (const start of [THIS_WEEK, isoWeekLabel(addWeeks(THIS_WEEK, 3))]) {
    const res = await ask([featured(id, { weeks: 1, start_week: start })]);
    t.is(res.status, 409, JSON.stringify(res.body));
    t.like(res.body, { code: 'not_live_in_week', first_week: isoWeekLabel(launch), first_week_start: launch });
    t.is(res.body.errors[0].path, 'items.0.options.start_week');
  }
  const built = await checkout(env, owner.key, { items: [featured(id, { weeks: 1, start_week: THIS_WEEK })], billing_country: 'US' });
  t.is(built.status, 409);
  t.is(
    await db()('orders')
      .where({ user_id: owner.userId })
      .whereRaw("quote->'lines'->0->>'listing_id' = ?", [String(id)])
      .count({ n: '*' })
      .first()
      .then((r) => Number(r!.n)),
    0,
  );
  // The launch week itself and later ones work.
  const ok = await ask([featured(id, { weeks: 1, start_week: isoWeekLabel(addWeeks(launch, 1)) })]);
  t.is(ok.status, 200, JSON.stringify(ok.body));
  t.is(ok.body.lines[0].options.start_week, addWeeks(launch, 1));
});

test('a listing without a launch week is refused unless the same order launches it; then both start together', async (t) => {
  const id = await listing('draft');
  const alone = await ask([featured(id, { weeks: 1 })]);
  t.is(alone.status, 409);
  t.like(alone.body, { code: 'not_live_in_week', first_week: null });
  t.regex(alone.body.detail, /no launch week yet/);

  const launchWeek = addWeeks(THIS_WEEK, 2);
  const together = await ask([
    { product: 'launch', listing_id: id, options: { week: isoWeekLabel(launchWeek) } },
    featured(id, { weeks: 2 }),
  ]);
  t.is(together.status, 200, JSON.stringify(together.body));
  t.is(together.body.lines[1].options.start_week, launchWeek);
  const atOnce = await ask([{ product: 'launch', listing_id: id }, featured(id, { weeks: 1 })]);
  t.is(atOnce.body.lines[1].options.start_week, THIS_WEEK);
});

test('an unlisted listing buys no placement; a past week is refused as past', async (t) => {
  const gone = await listing('unlisted');
  for (const item of [featured(gone, { weeks: 1 }), { product: 'categories', listing_id: gone, options: { categories: ['ai'] } }]) {
    const res = await ask([item]);
    t.is(res.status, 409, JSON.stringify(res.body));
    t.regex(res.body.detail, /unlisted/);
  }
  const live = await listing('live', THIS_WEEK);
  const past = await ask([featured(live, { weeks: 1, start_week: addWeeks(THIS_WEEK, -1) })]);
  t.is(past.status, 422);
  t.is(past.body.errors[0].path, 'items.0.options.start_week');
  const now = await ask([featured(live, { weeks: 1 })]);
  t.is(now.body.lines[0].options.start_week, THIS_WEEK);
  t.like(now.body.current_week, { week: isoWeekLabel(THIS_WEEK), short: false, hours_left: 4 * 24 + 12 });
});

test('a billboard for a scheduled listing starts no earlier than its launch week', async (t) => {
  const launch = addWeeks(THIS_WEEK, 2);
  const id = await listing('scheduled', launch);
  const early = await ask([{ product: 'billboard', listing_id: id, options: { start_date: addDays(THIS_WEEK, 3), days: 7 } }]);
  t.is(early.status, 409, JSON.stringify(early.body));
  t.like(early.body, { code: 'not_live_in_week', first_week_start: launch });
  const inTime = await ask([{ product: 'billboard', listing_id: id, options: { start_date: launch, days: 7 } }]);
  t.is(inTime.status, 200, JSON.stringify(inTime.body));
});

test.serial(
  'on a short week the default start is next week, this week is still offered, and the quote says how much is left',
  async (t) => {
    const id = await listing('live', THIS_WEEK);
    clock.set(`${addDays(THIS_WEEK, 5)}T18:22:00Z`); // Saturday 18:22 UTC: 29 h 38 min left
    const res = await ask([featured(id, { weeks: 1 })]);
    t.is(res.status, 200, JSON.stringify(res.body));
    t.is(res.body.lines[0].options.start_week, addWeeks(THIS_WEEK, 1));
    t.like(res.body.current_week, { week: isoWeekLabel(THIS_WEEK), short: true, hours_left: 29 });
    t.regex(res.body.current_week.notice, /^This week ends in 29 hours/);
    const thisWeek = await ask([featured(id, { weeks: 1, start_week: THIS_WEEK })]);
    t.is(thisWeek.status, 200);
    t.is(thisWeek.body.lines[0].options.start_week, THIS_WEEK);

    // The share is the site's setting: with 24 hours, Saturday evening is no longer short.
    await siteSettings(db(), 'main', { short_week_hours: 24 });
    env.services.caches.sites.clear();
    const setting = await ask([featured(id, { weeks: 1 })]);
    await siteSettings(db(), 'main', { short_week_hours: 72 });
    env.services.caches.sites.clear();
    t.is(setting.body.lines[0].options.start_week, THIS_WEEK);
    t.false(setting.body.current_week.short);
  },
);

test('over MCP the same: a scheduled listing is featured from its launch week; an earlier week is a tool error naming the first week', async (t) => {
  const { mcpParity } = await import('../helpers/mcp-parity.ts');
  const mcp = mcpParity(env);
  t.teardown(() => mcp.close());
  const launch = addWeeks(THIS_WEEK, 5);
  const id = await listing('scheduled', launch);
  const priced = await mcp.viaMcp(owner.key, 'quote_order', { items: [featured(id, { weeks: 1 })], billing_country: 'US' });
  t.false(priced.error, JSON.stringify(priced.body));
  t.deepEqual(priced.body.lines[0].weeks, [isoWeekLabel(launch)]);
  const early = await mcp.viaMcp(owner.key, 'create_checkout', {
    items: [featured(id, { weeks: 1, start_week: THIS_WEEK })],
    billing_country: 'US',
  });
  t.true(early.error);
  t.like(early.body, { code: 'not_live_in_week', first_week: isoWeekLabel(launch) });
});
