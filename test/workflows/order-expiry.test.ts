import test from 'ava';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { checkout, postWebhook, promo, succeededEvent, waitForOrder } from '../helpers/orders.ts';
import { workflowResult } from '../helpers/workflows.ts';
import { eventually } from '../helpers/eventually.ts';

let env: TestEnv;

test.before(async () => {
  // The expiry timer is the order's expires_at: a 3-second checkout link.
  env = await startTestEnv(import.meta.url, { ORDER_CHECKOUT_TTL_SECONDS: '3' });
  await env.startWorkers();
});
test.after.always(() => env?.close());

const db = () => env.services.db;

test('an unpaid order expires, releases its promo, and a late payment is refunded and recorded', async (t) => {
  const owner = await env.user();
  const listingId = await insertLiveListing(db(), { name: 'Too Late', ownerId: owner.userId });
  const code = await promo(db(), { maxRedemptions: 1 });
  const res = await checkout(env, owner.key, {
    items: [{ product: 'featured', listing_id: listingId, options: { weeks: 1 } }],
    billing_country: 'US',
    promo_code: code,
  });
  t.is(res.status, 201, JSON.stringify(res.body));
  const order = res.body;
  t.deepEqual(await workflowResult(env, `order:${order.number}`), { status: 'expired' });
  const expired = await waitForOrder(env, owner.key, order.number, ['expired']);
  t.is(expired.checkout_url, null);
  const row = await db()('orders').where({ number: order.number }).first();
  t.is((await db()('promo_redemptions').where({ order_id: row!.id }).first())!.state, 'released');

  // The code is free again for someone else.
  const other = await env.user();
  const theirs = await insertLiveListing(db(), { name: 'On Time', ownerId: other.userId });
  const again = await checkout(env, other.key, {
    items: [{ product: 'featured', listing_id: theirs, options: { weeks: 1 } }],
    billing_country: 'US',
    promo_code: code,
  });
  t.is(again.status, 201, JSON.stringify(again.body));

  // A payment for the expired order: the workflow starts again and refunds it.
  const event = succeededEvent(order.number, order.total_cents);
  t.is((await postWebhook(env, event)).status, 200);
  const refund = await eventually('the refund of the late payment', () => db()('refunds').where({ order_id: row!.id }).first());
  t.like(refund, {
    amount_cents: order.total_cents,
    reason: 'payment for an order that is expired',
    dedupe_key: `refund:${event.data.object.id}`,
  });
  t.is((await db()('orders').where({ id: row!.id }).first())!.status, 'expired');
  t.is(Number((await db()('featured_placements').where({ listing_id: listingId }).count({ n: '*' }))[0].n), 0);
});
