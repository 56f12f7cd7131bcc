import test from 'ava';
import { setSellerDetails } from '../../src/domain/sites/seller.ts';
import { signWebhook } from '../../src/payments/signature.ts';
import { api, request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { checkout, waitForOrder } from '../helpers/orders.ts';
import { startFakeStripe } from '../helpers/stripe-fake.ts';
import { WebClient } from '../helpers/web.ts';
import { eventually } from '../helpers/eventually.ts';
import { waitForNoPendingActivity } from '../helpers/workflows.ts';

/** The stripe adapter through the official SDK, against a loopback fake of the Stripe API. */

const SECRET_KEY = 'sk_test_fake_listing_directory';
const WEBHOOK_SECRET = 'whsec_fake_stripe_endpoint_secret';
const SELLER = { seller_name: 'Listing Directory Ltd', seller_address: '1 Main Street, Dublin 2, D02 XY45', seller_vat_id: 'IE6388047V' };
let env: TestEnv;
let stripe: Awaited<ReturnType<typeof startFakeStripe>>;

test.before(async () => {
  stripe = await startFakeStripe(SECRET_KEY);
  env = await startTestEnv(import.meta.url, {
    PAYMENT_PROVIDER: 'stripe',
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_PUBLISHABLE_KEY: 'pk_test_fake',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_HOST: '127.0.0.1',
    STRIPE_API_PORT: String(stripe.port),
    STRIPE_API_PROTOCOL: 'http',
    // Short tries of the payment steps (passed to each order run): a failing refund ends in seconds.
    ORDER_STEP_MAX_ATTEMPTS: '2',
    ORDER_STEP_RETRY_INITIAL_MS: '50',
  });
  await env.startWorkers();
  // Real payments need the seller's details for invoices; the makers site is left without them.
  await setSellerDetails(env.services.db, 'main', SELLER);
});
test.after.always(async () => {
  await env?.close();
  await stripe?.close();
});

const db = () => env.services.db;

async function newOrder() {
  const owner = await env.user();
  const listingId = await insertLiveListing(db(), { name: `Stripe ${Math.random().toString(36).slice(2, 8)}`, ownerId: owner.userId });
  const res = await checkout(env, owner.key, {
    items: [{ product: 'featured', listing_id: listingId, options: { weeks: 1 } }],
    billing_country: 'IE',
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return { owner, order: res.body as { number: string; total_cents: number; checkout_url: string } };
}

function stripeEvent(type: string, intent: object) {
  return {
    id: `evt_fake_${Math.random().toString(36).slice(2)}`,
    object: 'event',
    type,
    api_version: '2025-01-01',
    data: { object: intent },
  };
}

test('the pay page mounts the Payment Element for a PaymentIntent keyed order:{number}; the SDK-verified webhook fulfils', async (t) => {
  const { owner, order } = await newOrder();
  const page = await new WebClient(env.baseUrl).get(new URL(order.checkout_url).pathname);
  t.is(page.status, 200);
  const form = page.$('#stripe-payment');
  t.regex(form.attr('data-client-secret')!, /^pi_fake_\d+_secret_fake$/);
  t.is(form.attr('data-publishable-key'), 'pk_test_fake');
  t.regex(page.headers.get('content-security-policy')!, /script-src https:\/\/js\.stripe\.com 'sha256-/);
  t.is(page.$('input[name=card_number]').length, 0, 'no card fields of ours with Stripe');

  const created = stripe.requests.filter((r) => r.path === '/v1/payment_intents' && r.form.get('metadata[order_number]') === order.number);
  t.is(created.at(-1)!.idempotencyKey, `order:${order.number}`);
  t.is(created.at(-1)!.form.get('amount'), String(order.total_cents));
  t.is(created.at(-1)!.form.get('currency'), 'usd');
  t.is(created.at(-1)!.form.get('metadata[order_number]'), order.number);
  t.is(created.at(-1)!.form.get('automatic_payment_methods[enabled]'), 'true');
  // Reloading the page reuses the same PaymentIntent (the provider's idempotency).
  await new WebClient(env.baseUrl).get(new URL(order.checkout_url).pathname);
  const intentIds = new Set([...stripe.intents.values()].filter((i) => i.metadata.order_number === order.number).map((i) => i.id));
  t.is(intentIds.size, 1);

  const intent = stripe.succeed([...intentIds][0]!);
  const event = stripeEvent('payment_intent.succeeded', intent);
  const payload = JSON.stringify(event);
  const forged = await request(env, 'POST', '/webhooks/payments/stripe', {
    body: payload,
    headers: { 'stripe-signature': signWebhook(payload, 'whsec_wrong') },
  });
  t.is(forged.status, 400);
  const stale = await request(env, 'POST', '/webhooks/payments/stripe', {
    body: payload,
    headers: { 'stripe-signature': signWebhook(payload, WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 3600) },
  });
  t.is(stale.status, 400, 'outside the tolerance');
  t.is(
    (
      await request(env, 'POST', '/webhooks/payments/test', {
        body: payload,
        headers: { 'stripe-signature': signWebhook(payload, WEBHOOK_SECRET) },
      })
    ).status,
    404,
  );
  const ok = await request(env, 'POST', '/webhooks/payments/stripe', {
    body: payload,
    headers: { 'stripe-signature': signWebhook(payload, WEBHOOK_SECRET) },
  });
  t.is(ok.status, 200, JSON.stringify(ok.body));
  t.like(await waitForOrder(env, owner.key, order.number, ['fulfilled']), { payment_method: 'card', status: 'fulfilled' });
});

test('a lost webhook does not strand the payer: the success page asks Stripe', async (t) => {
  const { owner, order } = await newOrder();
  const client = new WebClient(env.baseUrl);
  await client.get(new URL(order.checkout_url).pathname);
  const intent = [...stripe.intents.values()].find((i) => i.metadata.order_number === order.number)!;
  stripe.succeed(intent.id);
  const done = await client.get(`${new URL(order.checkout_url).pathname}/done`);
  t.is(done.status, 200);
  t.true(stripe.requests.some((r) => r.path === '/v1/payment_intents/search' && r.form.get('query')!.includes(order.number)));
  t.is((await waitForOrder(env, owner.key, order.number, ['fulfilled'])).status, 'fulfilled');
});

test('a payment for an expired order is refunded through Stripe with an idempotency key', async (t) => {
  const { order } = await newOrder();
  await new WebClient(env.baseUrl).get(new URL(order.checkout_url).pathname);
  await db()('orders').where({ number: order.number }).update({ status: 'expired' });
  const intent = stripe.succeed([...stripe.intents.values()].find((i) => i.metadata.order_number === order.number)!.id);
  const payload = JSON.stringify(stripeEvent('payment_intent.succeeded', intent));
  t.is(
    (
      await request(env, 'POST', '/webhooks/payments/stripe', {
        body: payload,
        headers: { 'stripe-signature': signWebhook(payload, WEBHOOK_SECRET) },
      })
    ).status,
    200,
  );
  const refund = await eventually(
    'the refund',
    () => db()('refunds').join('orders', 'orders.id', 'refunds.order_id').where('orders.number', order.number).first('refunds.*'),
    { timeoutMs: 20_000, intervalMs: 200 },
  );
  t.regex(refund.provider_refund_id ?? '', /^re_fake_/);
  const call = stripe.requests.find((r) => r.path === '/v1/refunds' && r.form.get('payment_intent') === intent.id)!;
  t.is(call.idempotencyKey, `refund:${intent.id}`);
  t.is(call.form.get('amount'), String(order.total_cents));
});

test('a refund Stripe refuses is not retried and one Stripe keeps failing stops after its tries: both orders need support', async (t) => {
  const cases = [
    {
      status: 400,
      error: { type: 'invalid_request_error', code: 'charge_already_refunded', message: 'Charge has already been refunded.' },
    },
    { status: 500, error: { type: 'api_error', message: 'An unknown error occurred' } },
  ];
  const orders = [];
  for (const failure of cases) {
    const { owner, order } = await newOrder();
    await new WebClient(env.baseUrl).get(new URL(order.checkout_url).pathname);
    await db()('orders').where({ number: order.number }).update({ status: 'expired' });
    const intent = stripe.succeed([...stripe.intents.values()].find((i) => i.metadata.order_number === order.number)!.id);
    stripe.refundFailures.set(intent.id, failure);
    const payload = JSON.stringify(stripeEvent('payment_intent.succeeded', intent));
    const posted = await request(env, 'POST', '/webhooks/payments/stripe', {
      body: payload,
      headers: { 'stripe-signature': signWebhook(payload, WEBHOOK_SECRET) },
    });
    t.is(posted.status, 200);
    orders.push({ owner, order, intent });
  }
  const calls = (intentId: string) =>
    stripe.requests.filter((r) => r.path === '/v1/refunds' && r.form.get('payment_intent') === intentId).length;
  const [refused, failing] = orders;
  t.is((await waitForOrder(env, refused!.owner.key, refused!.order.number, ['attention'], 30_000)).status, 'attention');
  const refusedRow = await db()('orders').where({ number: refused!.order.number }).first('attention_reason');
  t.regex(refusedRow!.attention_reason!, /failed: the provider refused: Charge has already been refunded/);
  t.is(calls(refused!.intent.id), 1, 'a refusal is asked once');

  t.is((await waitForOrder(env, failing!.owner.key, failing!.order.number, ['attention'], 60_000)).status, 'attention');
  const failingRow = await db()('orders').where({ number: failing!.order.number }).first('attention_reason');
  t.regex(failingRow!.attention_reason!, /refund of payment pi_fake_\d+ \(payment for an order that is expired\) failed: /);
  // Two tries of the step, each with the SDK's own network retries (maxNetworkRetries: 2).
  const tries = calls(failing!.intent.id);
  t.true(tries >= 2 && tries <= 6, `${tries} refund calls`);
  // The order's workflow waits for support with no step scheduled or retrying: nothing more can call.
  await waitForNoPendingActivity(env, `order:${failing!.order.number}`);
  t.is(calls(failing!.intent.id), tries, 'nothing retries after the order went to support');
});

test('without the seller details its invoices need, a site takes no real payments: checkout and the pay page refuse', async (t) => {
  const owner = await env.user();
  const listingId = await insertLiveListing(db(), { name: 'Unsold Makers', site: 'makers', ownerId: owner.userId });
  const body = { items: [{ product: 'featured', listing_id: listingId, options: { weeks: 1 } }], billing_country: 'IE' };
  const buy = (key: string) =>
    api(env, 'POST', '/orders/checkout', { key: owner.key, body, headers: { host: 'makers.localhost', 'idempotency-key': key } });
  const intents = (number: string) =>
    stripe.requests.filter((r) => r.path === '/v1/payment_intents' && r.form.get('metadata[order_number]') === number).length;

  const refused = await buy('makers-1');
  t.is(refused.status, 503, JSON.stringify(refused.body));
  t.like(refused.body, { code: 'seller_details_missing', title: 'Payments unavailable' });
  t.regex(refused.body.detail, /legal name, address, VAT ID/);
  t.is(Number((await db()('orders').where({ user_id: owner.userId }).count({ n: '*' }))[0]!.n), 0);

  // A VAT ID alone is not enough: the name and address are still missing.
  await setSellerDetails(db(), 'makers', { seller_vat_id: 'IE6388047V' });
  t.regex((await buy('makers-2')).body.detail, /legal name, address for invoices/);

  await setSellerDetails(db(), 'makers', { seller_name: 'Makers Weekly Ltd', seller_address: '2 Quay Street, Galway' });
  const made = await buy('makers-3');
  t.is(made.status, 201, JSON.stringify(made.body));

  // Cleared again after the order was made: its pay page asks Stripe for nothing and says why.
  await setSellerDetails(db(), 'makers', { seller_address: '' });
  const before = intents(made.body.number);
  const page = await new WebClient(env.baseUrl).get(new URL(made.body.checkout_url).pathname);
  t.is(page.status, 503);
  t.regex(page.$('main').text(), /takes no payments until its operator sets the seller's address/);
  t.is(page.$('#stripe-payment').length, 0);
  t.is(intents(made.body.number), before);
  await setSellerDetails(db(), 'makers', { seller_address: '2 Quay Street, Galway' });
  t.is((await new WebClient(env.baseUrl).get(new URL(made.body.checkout_url).pathname)).$('#stripe-payment').length, 1);
});
