import test from 'ava';
import { createCheckout } from '../../src/domain/orders/checkout.ts';
import { isoWeekLabel } from '../../src/workflows/contracts/weeks.ts';
import { readSites } from '../../src/domain/sites/sites.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertDraftListing, insertLiveListing } from '../helpers/listings.ts';
import { checkout, inDays, mondayIn, postWebhook, quote, succeededEvent, waitForOrder } from '../helpers/orders.ts';
import { recordHistory, workflowResult } from '../helpers/workflows.ts';

/** Capacity is held, not hoped for, and items are for listings of the request's site. */

type User = { userId: number; key: string; email: string };
let env: TestEnv;
let filler: User;

test.before(async () => {
  env = await startTestEnv(import.meta.url, { ORDER_CHECKOUT_TTL_SECONDS: '3600' });
  await env.startWorkers();
  filler = await env.user();
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const count = async (table: string, where: Record<string, unknown>) => Number((await db()(table).where(where).count({ n: '*' }))[0].n);
const mainSiteId = async () => (await db()('sites').where({ key: 'main' }).first('id'))!.id as number;
const unique = () => Math.random().toString(36).slice(2, 8);

/** A buyer with a listing on `site`: in draft (not launched yet, to buy its launch), or live (to place it). */
async function buyer(site = 'main', state: 'draft' | 'live' = 'draft'): Promise<User & { listingId: number }> {
  const user = await env.user();
  const name = `Buyer ${unique()}`;
  const insert = state === 'live' ? insertLiveListing : insertDraftListing;
  const listingId = await insert(db(), { name, ownerId: user.userId, site });
  return { ...user, listingId };
}

/** Books the week's paid slots (for other listings, as paid launches would) until `left` are free. */
async function fillWeek(week: string, left: number): Promise<number> {
  const siteId = await mainSiteId();
  const { paid_slots: perWeek, paid_taken: taken } = await weekRow(week);
  await db()('launch_weeks').insert({ site_id: siteId, week_start: week }).onConflict(['site_id', 'week_start']).ignore();
  for (let i = 0; i < perWeek - left - taken; i++) {
    const id = await insertLiveListing(db(), { name: `Booked ${unique()}`, ownerId: filler.userId });
    await db()('launch_slots').insert({ listing_id: id, site_id: siteId, week_start: week, kind: 'paid' });
  }
  return perWeek;
}

const launchIn = (listingId: number, week: string) => ({
  items: [{ product: 'launch', listing_id: listingId, options: { week } }],
  billing_country: 'US',
});
const weekRow = async (week: string) =>
  (await api(env, 'GET', '/launch-weeks')).body.items.find((w: { week_start: string }) => w.week_start === week);

test('N parallel checkouts for the last paid slot of a week: one is held, the rest are 409 sold_out naming the next week', async (t) => {
  const N = 8;
  const [week, next] = [mondayIn(8), mondayIn(9)];
  const perWeek = await fillWeek(week, 1);
  const buyers = await Promise.all(Array.from({ length: N }, () => buyer()));
  const started = Date.now();
  const results = await Promise.all(buyers.map((b) => checkout(env, b.key, launchIn(b.listingId, week))));
  t.log(`${N} parallel checkouts for 1 slot in ${Date.now() - started} ms: ${results.map((r) => r.status).join(' ')}`);

  const won = results.filter((r) => r.status === 201);
  const lost = results.filter((r) => r.status !== 201);
  t.is(won.length, 1, JSON.stringify(results.map((r) => r.body)));
  t.is(lost.length, N - 1);
  for (const res of lost) {
    t.is(res.status, 409);
    t.regex(res.headers.get('content-type')!, /application\/problem\+json/);
    t.like(res.body, { code: 'sold_out', title: 'Sold out', status: 409, available: [{ week: isoWeekLabel(next), week_start: next }] });
    t.is(res.body.errors[0].path, 'items.0.options.week');
    t.true(res.body.detail.includes(`the next week with room is ${isoWeekLabel(next)}`), res.body.detail);
  }
  // Exactly one order, holding exactly one slot; the refused checkouts left nothing behind.
  const orders = await db()('orders').whereIn(
    'user_id',
    buyers.map((b) => b.userId),
  );
  t.is(orders.length, 1);
  t.is(Number((await db()('capacity_holds').where({ kind: 'launch', week_start: week }).count({ n: '*' }))[0].n), 1);
  t.like(await weekRow(week), { paid_slots: perWeek, paid_taken: perWeek, paid_held: 1, state: 'open' });

  // A quote counts the hold too; the holder's own listing is not in its own way.
  const late = await buyer();
  const quoted = await quote(env, late.key, launchIn(late.listingId, week));
  t.is(quoted.status, 409);
  t.is(quoted.body.code, 'sold_out');
  const holder = buyers[results.indexOf(won[0]!)]!;
  t.is((await quote(env, holder.key, launchIn(holder.listingId, week))).status, 200);
  t.is((await checkout(env, late.key, launchIn(late.listingId, next))).status, 201, 'the week it names has room');
});

test('an expired checkout gives its slot back; a canceled one too', async (t) => {
  const week = mondayIn(10);
  await fillWeek(week, 1);
  const first = await buyer();
  // A 5-second link: the order workflow's expiry timer is the order's expires_at.
  const site = (await readSites(db())).find((s) => s.key === 'main')!;
  const config = { ...env.services.config, orders: { ...env.services.config.orders, checkoutTtlSeconds: 5 } };
  const ctx = { site, userId: first.userId, clientIp: '127.0.0.1', now: new Date(), promoLimits: config.orders.promoLimits };
  const short = await createCheckout(
    { db: db(), config, workflowStarts: env.services.workflowStarts },
    ctx,
    launchIn(first.listingId, week),
  );
  t.like(await weekRow(week), { paid_held: 1 });

  const second = await buyer();
  const refused = await checkout(env, second.key, launchIn(second.listingId, week));
  t.is(refused.status, 409);
  t.is(refused.body.code, 'sold_out');

  t.deepEqual(await workflowResult(env, `order:${short.number}`), { status: 'expired' });
  t.is(await count('capacity_holds', { order_id: (await db()('orders').where({ number: short.number }).first('id'))!.id }), 0);
  t.like(await weekRow(week), { paid_held: 0 });
  const taken = await checkout(env, second.key, launchIn(second.listingId, week));
  t.is(taken.status, 201, JSON.stringify(taken.body));

  // Canceled (whatever cancels it): the order's status alone frees the slot.
  const third = await buyer();
  t.is((await checkout(env, third.key, launchIn(third.listingId, week))).status, 409);
  await db()('orders').where({ number: taken.body.number }).update({ status: 'canceled' });
  t.like(await weekRow(week), { paid_held: 0 });
  t.is((await checkout(env, third.key, launchIn(third.listingId, week))).status, 201);
});

test('billboard days are held by a checkout: an overlapping one is 409 sold_out with the first free start date', async (t) => {
  const [a, b] = [await buyer('main', 'live'), await buyer('main', 'live')];
  const board = (listingId: number, start: string) => ({
    items: [{ product: 'billboard', listing_id: listingId, options: { start_date: start, days: 7 } }],
    billing_country: 'US',
  });
  const held = await checkout(env, a.key, board(a.listingId, inDays(200)));
  t.is(held.status, 201, JSON.stringify(held.body));
  t.is(await count('capacity_holds', { order_id: (await db()('orders').where({ number: held.body.number }).first('id'))!.id }), 7);
  for (const res of [
    await quote(env, b.key, board(b.listingId, inDays(203))),
    await checkout(env, b.key, board(b.listingId, inDays(203))),
  ]) {
    t.is(res.status, 409, JSON.stringify(res.body));
    t.like(res.body, { code: 'sold_out', available: [{ start_date: inDays(207) }], errors: [{ path: 'items.0.options.start_date' }] });
    t.true(res.body.detail.includes(inDays(207)));
  }
  // Two billboards in one order cannot overlap each other either.
  const both = await checkout(env, b.key, {
    items: [...board(b.listingId, inDays(230)).items, ...board(b.listingId, inDays(233)).items],
    billing_country: 'US',
  });
  t.is(both.status, 409);
  t.is(both.body.errors[0].path, 'items.1.options.start_date');
  t.is((await checkout(env, b.key, board(b.listingId, inDays(207)))).status, 201);
  // The hold goes back with its order.
  await db()('orders').where({ number: held.body.number }).update({ status: 'canceled' });
  t.is((await checkout(env, b.key, board(b.listingId, inDays(200)))).status, 201);
});

test('race for billboard days: one checkout holds them', async (t) => {
  const buyers = await Promise.all(Array.from({ length: 6 }, () => buyer('main', 'live')));
  const results = await Promise.all(
    buyers.map((b) =>
      checkout(env, b.key, {
        items: [{ product: 'billboard', listing_id: b.listingId, options: { start_date: inDays(300), days: 7 } }],
        billing_country: 'US',
      }),
    ),
  );
  t.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409]);
});

/** Pays an order through the webhook, as the test provider would. */
const pay = (order: { number: string; total_cents: number }) => postWebhook(env, succeededEvent(order.number, order.total_cents));

test('a paid section that was unlocked meanwhile is refunded automatically, with a notification and a mail', async (t) => {
  const b = await buyer();
  const res = await checkout(env, b.key, {
    items: [{ product: 'unlock_section', listing_id: b.listingId, options: { section: 'story' } }],
    billing_country: 'US',
  });
  t.is(res.status, 201, JSON.stringify(res.body));
  await db()('listings')
    .where({ id: b.listingId })
    .update({ unlocked_sections: ['story'] });
  t.is((await pay(res.body)).status, 200);
  const done = await waitForOrder(env, b.key, res.body.number, ['refunded', 'attention', 'fulfilled']);
  t.is(done.status, 'refunded');
  t.deepEqual(await workflowResult(env, `order:${res.body.number}`), { status: 'refunded' });
  const order = await db()('orders').where({ number: res.body.number }).first();
  t.is(order!.attention_reason, null);
  const refunds = await db()('refunds').where({ order_id: order!.id });
  t.is(refunds.length, 1);
  t.like(refunds[0], { amount_cents: res.body.total_cents, dedupe_key: `undeliverable:${order!.number}:0` });
  t.regex(refunds[0].reason, /undeliverable: the section "story" was unlocked/);
  t.truthy(refunds[0].provider_refund_id);
  t.like(await db()('notifications').where({ user_id: b.userId, kind: 'order_refund' }).first(), { listing_id: b.listingId });
  const mail = await db()('mail_outbox').where({ dedupe_key: `undeliverable:${order!.number}:0` });
  t.is(mail.length, 1);
  t.is(mail[0].to_address, b.email);
  t.true(mail[0].body_text.includes(`USD ${(res.body.total_cents / 100).toFixed(2)}`), mail[0].body_text);
  const listed = await api(env, 'GET', '/me/notifications', { key: b.key });
  t.is(listed.status, 200, JSON.stringify(listed.body));
  t.is(listed.body.items[0].kind, 'order_refund');
});

test('a launch whose held slot was lost to an operator change is refunded (that line only); the rest is delivered', async (t) => {
  const week = mondayIn(11);
  await fillWeek(week, 1);
  const b = await buyer();
  const res = await checkout(env, b.key, {
    items: [
      { product: 'featured', listing_id: b.listingId, options: { weeks: 1 } },
      { product: 'launch', listing_id: b.listingId, options: { week } },
    ],
    billing_country: 'US',
  });
  t.is(res.status, 201, JSON.stringify(res.body));
  // An operator drops the hold and books the slot for someone else.
  const line = await db()('order_lines as l')
    .join('orders as o', 'o.id', 'l.order_id')
    .where({ 'o.number': res.body.number, 'l.product': 'launch' })
    .first('l.id');
  t.is(await db()('capacity_holds').where({ order_line_id: line.id }).delete(), 1);
  await fillWeek(week, 0);
  t.is((await pay(res.body)).status, 200);
  const done = await waitForOrder(env, b.key, res.body.number, ['fulfilled', 'refunded', 'attention']);
  t.is(done.status, 'fulfilled', 'the featured line is delivered');
  t.deepEqual(
    done.lines.map((l: { product: string; fulfilled: boolean }) => [l.product, l.fulfilled]),
    [
      ['featured', true],
      ['launch', false],
    ],
  );
  const order = await db()('orders').where({ number: res.body.number }).first('id');
  const refunds = await db()('refunds').where({ order_id: order!.id });
  t.is(refunds.length, 1);
  const launchLine = res.body.lines[1];
  t.is(refunds[0].amount_cents, launchLine.net_cents + launchLine.vat_cents);
  t.regex(refunds[0].reason, /paid launch slots of .* are taken/);
  t.like(await db()('listings').where({ id: b.listingId }).first(), { status: 'draft' });
  t.is(await count('featured_placements', { listing_id: b.listingId }), 1);
  t.deepEqual(await workflowResult(env, `order:${res.body.number}`), { status: 'fulfilled' });
  // UPDATE_FIXTURES=1 rewrites the replay fixture of this path (test/workflows/replay.test.ts).
  await recordHistory(env, `order:${res.body.number}`, 'order-workflow-line-refunded.json');
});

test('paid billboard days whose hold was lost are refunded, and nothing is booked over the holder', async (t) => {
  const [a, b] = [await buyer('main', 'live'), await buyer('main', 'live')];
  const board = (listingId: number) => ({
    items: [{ product: 'billboard', listing_id: listingId, options: { start_date: inDays(250), days: 7 } }],
    billing_country: 'US',
  });
  const lost = await checkout(env, a.key, board(a.listingId));
  t.is(lost.status, 201, JSON.stringify(lost.body));
  const { id: orderId } = (await db()('orders').where({ number: lost.body.number }).first('id'))!;
  // An operator removes the hold; someone else's checkout holds the days.
  t.is(await db()('capacity_holds').where({ order_id: orderId }).delete(), 7);
  t.is((await checkout(env, b.key, board(b.listingId))).status, 201);
  t.is((await pay(lost.body)).status, 200);
  t.is((await waitForOrder(env, a.key, lost.body.number, ['refunded', 'attention', 'fulfilled'])).status, 'refunded');
  t.is(await count('billboard_days', { listing_id: a.listingId }), 0);
  t.like(await db()('refunds').where({ order_id: orderId }).first(), { amount_cents: lost.body.total_cents });
  t.is(await count('mail_outbox', { dedupe_key: `undeliverable:${lost.body.number}:0` }), 1);
});

test('a paid launch books its held slot: held becomes taken', async (t) => {
  const week = mondayIn(7);
  const perWeek = await fillWeek(week, 1);
  const b = await buyer();
  const res = await checkout(env, b.key, launchIn(b.listingId, week));
  t.is(res.status, 201, JSON.stringify(res.body));
  t.is((await pay(res.body)).status, 200);
  t.is((await waitForOrder(env, b.key, res.body.number, ['fulfilled', 'refunded', 'attention'])).status, 'fulfilled');
  t.like(await weekRow(week), { paid_taken: perWeek, paid_held: 0 });
  t.is(await count('capacity_holds', { listing_id: b.listingId }), 0);
  t.like(await db()('listings').where({ id: b.listingId }).first(), { status: 'scheduled', plan: 'paid', launch_week: week });
});

test('an order item for a listing of another site is not found, at quote and at checkout', async (t) => {
  const owner = await env.user();
  const makersListing = await insertLiveListing(db(), { name: `Makers ${unique()}`, ownerId: owner.userId, site: 'makers' });
  const mainListing = await insertLiveListing(db(), { name: `Main ${unique()}`, ownerId: owner.userId });
  const featured = (listingId: number) => ({
    items: [{ product: 'featured', listing_id: listingId, options: { weeks: 1 } }],
    billing_country: 'US',
  });
  for (const res of [await quote(env, owner.key, featured(makersListing)), await checkout(env, owner.key, featured(makersListing))]) {
    t.is(res.status, 404, JSON.stringify(res.body));
    t.like(res.body, { code: 'not_found', detail: `Listing ${makersListing} was not found among your listings on this site.` });
  }
  const makers = { host: 'makers.localhost' };
  const onMakers = (body: unknown) => api(env, 'POST', '/orders/quote', { key: owner.key, body, headers: makers });
  t.is((await onMakers(featured(makersListing))).status, 200);
  const crossed = await onMakers(featured(mainListing));
  t.is(crossed.status, 404);
  t.is(crossed.body.code, 'not_found');
  t.is(await count('orders', { user_id: owner.userId }), 0);
  // Bad input stays a problem, never a 500.
  const bad = await quote(env, owner.key, {
    items: [{ product: 'launch', listing_id: mainListing, options: { week: '2026-W99' } }],
    billing_country: 'US',
  });
  t.is(bad.status, 400);
  t.is(bad.body.code, 'validation_failed');
});
