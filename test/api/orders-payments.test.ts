import test from 'ava';
import { applyPayment, storePaymentEvent } from '../../src/domain/orders/payment.ts';
import { toPaymentEvent } from '../../src/domain/orders/payment-port.ts';
import { createTestProvider } from '../../src/payments/test-provider/index.ts';
import { api, request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { hasHistoryEvent, recordHistory, waitForHistoryEvent, workflowResult } from '../helpers/workflows.ts';
import { checkout, inDays, postWebhook, promo, succeededEvent, waitForOrder } from '../helpers/orders.ts';

type User = { userId: number; key: string; email: string };
let env: TestEnv;
let owner: User;

test.before(async () => {
  env = await startTestEnv(import.meta.url, { ORDER_FULFIL_MAX_ATTEMPTS: '2' });
  await env.startWorkers();
  owner = await env.user();
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const count = async (table: string, where: Record<string, unknown>) => Number((await db()(table).where(where).count({ n: '*' }))[0].n);

async function newOrder(items: (listingId: number) => unknown[], extra: Record<string, unknown> = {}) {
  const listingId = await insertLiveListing(db(), { name: `Paid ${Math.random().toString(36).slice(2, 8)}`, ownerId: owner.userId });
  const bought = items(listingId) as { product: string }[];
  // A listing that buys its launch has not launched yet; placements alone are for a live one.
  if (bought.some((i) => i.product === 'launch')) {
    await db()('listings').where({ id: listingId }).update({ status: 'draft', live_at: null, launch_week: null });
  }
  const res = await checkout(env, owner.key, { items: bought, billing_country: 'DE', ...extra });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return { order: res.body, listingId };
}

test('a paid order is fulfilled line by line exactly once, however often the webhook comes', async (t) => {
  const code = await promo(db(), { percent: 10 });
  const { order, listingId } = await newOrder(
    (id) => [
      { product: 'launch', listing_id: id },
      { product: 'featured', listing_id: id, options: { weeks: 3 } },
      { product: 'categories', listing_id: id, options: { categories: ['ai', 'data'] } },
      { product: 'billboard', listing_id: id, options: { start_date: inDays(60), days: 7 } },
      { product: 'unlock_section', listing_id: id, options: { section: 'story' } },
    ],
    { promo_code: code },
  );
  const event = succeededEvent(order.number, order.total_cents);
  const answers = await Promise.all(Array.from({ length: 5 }, () => postWebhook(env, event)));
  t.true(
    answers.every((a) => a.status === 200),
    JSON.stringify(answers.map((a) => a.body)),
  );
  t.is(answers.filter((a) => a.body.duplicate === false).length, 1);
  const done = await waitForOrder(env, owner.key, order.number, ['fulfilled', 'attention']);
  t.is(done.status, 'fulfilled', JSON.stringify(done));
  t.true(done.lines.every((l: { fulfilled: boolean; fulfilled_at: string }) => l.fulfilled && l.fulfilled_at));
  t.like(done, { payment_method: 'card', invoice_url: `${env.baseUrl}/account/orders/${order.number}/invoice`, checkout_url: null });
  t.truthy(done.paid_at);

  t.is(await count('payment_events', { provider_event_id: event.id }), 1);
  t.is(await count('featured_placements', { listing_id: listingId }), 3);
  t.is(await count('category_placements', { listing_id: listingId }), 2);
  t.is(await count('billboard_days', { listing_id: listingId }), 7);
  t.like(await db()('listings').where({ id: listingId }).first(), { status: 'live', plan: 'paid', unlocked_sections: ['story'] });
  const row = await db()('orders').where({ number: order.number }).first();
  t.true(row!.invoice_number! > 0);
  t.is(await count('promo_redemptions', { order_id: row!.id, state: 'counted' }), 1);
  const mail = await db()('mail_outbox').where({ dedupe_key: `order-receipt:${order.number}` });
  t.is(mail.length, 1);
  t.true(mail[0].body_text.includes(`VAT 19.00 % (DE`), mail[0].body_text);
  t.true(mail[0].body_text.includes(`Total paid: USD ${(order.total_cents / 100).toFixed(2)}`));

  t.deepEqual(await workflowResult(env, `order:${order.number}`), { status: 'fulfilled' });
  await recordHistory(env, `order:${order.number}`, 'order-workflow-fulfilled.json');

  // Later deliveries of the same event change nothing either.
  t.is((await postWebhook(env, event)).body.duplicate, true);
  // The webhook answers after its signalWithStart: the run it started (if any) has seen the event once it finished.
  t.deepEqual(await workflowResult(env, `order:${order.number}`), { status: 'fulfilled' });
  t.is(await count('featured_placements', { listing_id: listingId }), 3);
});

test('a payment applied by a step whose worker died before the workflow recorded it is still fulfilled', async (t) => {
  // The step committed `paid` (invoice, receipt) and the worker was killed before the workflow
  // task that ran it completed: the new worker runs the step again for the same event.
  const { order, listingId } = await newOrder((id) => [{ product: 'featured', listing_id: id, options: { weeks: 2 } }]);
  // The workflow saw the order pending and waits for the payment (its expiry timer runs).
  await waitForHistoryEvent(env, `order:${order.number}`, 'timerStartedEventAttributes');
  const event = succeededEvent(order.number, order.total_cents);
  const stored = await storePaymentEvent(db(), 'test', toPaymentEvent(event), event);
  t.like(await applyPayment(db(), env.services.config, order.number, stored.id), { kind: 'paid' });
  const again = await postWebhook(env, event);
  t.like(again.body, { duplicate: true, order: order.number });
  t.deepEqual(await workflowResult(env, `order:${order.number}`), { status: 'fulfilled' });
  t.is(await count('featured_placements', { listing_id: listingId }), 2);
  t.is(await count('mail_outbox', { dedupe_key: `order-receipt:${order.number}` }), 1);
  // Asked again, the step answers what it answered the first time.
  t.like(await applyPayment(db(), env.services.config, order.number, stored.id), { kind: 'paid' });
});

test('invoice numbers are gap-free per site', async (t) => {
  const orders = await Promise.all(
    Array.from({ length: 4 }, () => newOrder((id) => [{ product: 'featured', listing_id: id, options: { weeks: 1 } }])),
  );
  await Promise.all(orders.map(({ order }) => postWebhook(env, succeededEvent(order.number, order.total_cents))));
  for (const { order } of orders) await waitForOrder(env, owner.key, order.number, ['fulfilled']);
  const numbers = (await db()('orders').whereNotNull('invoice_number').orderBy('invoice_number').pluck('invoice_number')) as number[];
  t.deepEqual(
    numbers,
    Array.from({ length: numbers.length }, (_, i) => i + 1),
  );
});

test('a forged signature is refused and changes nothing', async (t) => {
  const { order } = await newOrder((id) => [{ product: 'featured', listing_id: id, options: { weeks: 1 } }]);
  const event = succeededEvent(order.number, order.total_cents);
  const forged = await postWebhook(env, event, 'whsec_not_the_secret_at_all');
  t.is(forged.status, 400);
  t.is(forged.body.code, 'invalid_signature');
  const unsigned = await request(env, 'POST', '/webhooks/payments/test', { body: event });
  t.is(unsigned.status, 400);
  t.is((await request(env, 'POST', '/webhooks/payments/stripe', { body: event })).status, 404);
  t.is(await count('payment_events', { provider_event_id: event.id }), 0);
  // A payment is signalled before the webhook answers: a refused one left no signal behind.
  t.false(await hasHistoryEvent(env, `order:${order.number}`, 'workflowExecutionSignaledEventAttributes'));
  t.is((await api(env, 'GET', `/orders/${order.number}`, { key: owner.key })).body.status, 'pending');
});

test('an event for an unknown order is stored and signals nothing', async (t) => {
  const event = succeededEvent('LD-ZZZZ-ZZZZ', 1000);
  const res = await postWebhook(env, event);
  t.is(res.status, 200);
  t.like(res.body, { received: true, order: null });
  t.is(await count('payment_events', { provider_event_id: event.id }), 1);
});

test('a payment that does not match the total needs support', async (t) => {
  const { order, listingId } = await newOrder((id) => [{ product: 'featured', listing_id: id, options: { weeks: 2 } }]);
  await postWebhook(env, succeededEvent(order.number, order.total_cents - 1));
  const res = await waitForOrder(env, owner.key, order.number, ['attention', 'fulfilled']);
  t.is(res.status, 'attention');
  t.regex((await db()('orders').where({ number: order.number }).first())!.attention_reason!, /the order's total is/);
  t.is(await count('featured_placements', { listing_id: listingId }), 0);
  const other = await newOrder((id) => [{ product: 'featured', listing_id: id, options: { weeks: 1 } }]);
  await postWebhook(env, succeededEvent(other.order.number, other.order.total_cents, { currency: 'eur' }));
  t.is((await waitForOrder(env, owner.key, other.order.number, ['attention', 'fulfilled'])).status, 'attention');
});

test('the test provider pays by card and delivers its own signed webhook', async (t) => {
  const { order, listingId } = await newOrder((id) => [{ product: 'featured', listing_id: id, options: { weeks: 1 } }]);
  const provider = createTestProvider(db(), env.services.config.orders);
  const declined = await provider.pay({ number: order.number, amountCents: order.total_cents, currency: 'USD' }, 'card', {
    number: '4000 0000 0000 0002',
    expiry: '12/40',
    cvc: '123',
  });
  t.like(declined, { status: 'declined' });
  t.regex(declined.message!, /declined/);
  const paid = await provider.pay({ number: order.number, amountCents: order.total_cents, currency: 'USD' }, 'card', {
    number: '4242 4242 4242 4242',
    expiry: '12/40',
    cvc: '123',
  });
  t.is(paid.status, 'succeeded');
  const done = await waitForOrder(env, owner.key, order.number, ['fulfilled', 'attention']);
  t.is(done.status, 'fulfilled');
  t.is(await count('featured_placements', { listing_id: listingId }), 1);
  t.deepEqual((await provider.findSucceededPayment(order.number))?.paymentId, paid.paymentId);
});

test('billboard days cannot be sold twice: a second checkout is refused (sold_out) instead of paid and left in attention', async (t) => {
  const first = await newOrder((id) => [{ product: 'billboard', listing_id: id, options: { start_date: inDays(120), days: 7 } }]);
  const listingId = await insertLiveListing(db(), { name: `Paid ${Math.random().toString(36).slice(2, 8)}`, ownerId: owner.userId });
  const second = await checkout(env, owner.key, {
    items: [{ product: 'billboard', listing_id: listingId, options: { start_date: inDays(120), days: 7 } }],
    billing_country: 'DE',
  });
  t.is(second.status, 409, JSON.stringify(second.body));
  t.like(second.body, { code: 'sold_out', available: [{ start_date: inDays(127) }] });
  await postWebhook(env, succeededEvent(first.order.number, first.order.total_cents));
  t.is((await waitForOrder(env, owner.key, first.order.number, ['fulfilled', 'attention'])).status, 'fulfilled');
  t.is(await count('billboard_days', { listing_id: first.listingId }), 7);
  const { id: orderId } = (await db()('orders').where({ number: first.order.number }).first('id'))!;
  t.is(await count('capacity_holds', { order_id: orderId }), 0, 'the hold became the booking');
});
