import { randomUUID } from 'node:crypto';
import { createUser } from '../../src/auth/users.ts';
import type { Db } from '../../src/db/knex.ts';
import { fulfilLine } from '../../src/domain/orders/fulfilment.ts';
import { createPromo, type NewPromo } from '../../src/domain/orders/promos-admin.ts';
import { isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { signWebhook } from '../../src/payments/signature.ts';
import { api, request, type TestEnv } from './env.ts';
import { insertLiveListing } from './listings.ts';

/** POST /orders/quote. */
export const quote = (env: TestEnv, key: string, body: unknown, headers: Record<string, string> = {}) =>
  api(env, 'POST', '/orders/quote', { key, body, headers });

/** POST /orders/checkout with an Idempotency-Key when given. */
export const checkout = (env: TestEnv, key: string, body: unknown, idempotencyKey?: string) =>
  api(env, 'POST', '/orders/checkout', { key, body, headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {} });

/** A promo code on the main site (unique code per call unless given). */
export async function promo(db: Db, fields: Partial<NewPromo> = {}): Promise<string> {
  const code = fields.code ?? `P${Math.random().toString(36).slice(2, 10).toUpperCase()}`;
  await createPromo(db, {
    site: 'main',
    code,
    firstOrderOnly: false,
    ...(fields.amountCents === undefined ? { percent: 10 } : {}),
    ...fields,
  });
  return code;
}

/** YYYY-MM-DD `days` from today (UTC). */
export const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** Monday of the ISO week `weeks` from now. */
export const mondayIn = (weeks: number) => isoWeekStart(new Date(Date.now() + weeks * 7 * 86_400_000));

/** The seeded price of a product on the main site. */
export async function priceOf(db: Db, product: string): Promise<number> {
  const row = await db('products as p')
    .join('sites as s', 's.id', 'p.site_id')
    .where({ 's.key': 'main', 'p.key': product })
    .first('p.price_cents');
  return row.price_cents;
}

/** A Stripe-format `payment_intent.succeeded` event for an order (what the test provider sends). */
export function succeededEvent(
  number: string,
  amountCents: number,
  options: { eventId?: string; paymentId?: string; currency?: string } = {},
) {
  const paymentId = options.paymentId ?? `pi_t_${Math.random().toString(36).slice(2)}`;
  return {
    id: options.eventId ?? `evt_${paymentId}`,
    object: 'event',
    type: 'payment_intent.succeeded',
    data: {
      object: {
        id: paymentId,
        object: 'payment_intent',
        amount: amountCents,
        amount_received: amountCents,
        currency: options.currency ?? 'usd',
        metadata: { order_number: number, method: 'card' },
        payment_method_types: ['card'],
      },
    },
  };
}

/** POSTs an event to our webhook, signed like Stripe with `secret` (the test provider's by default). */
export function postWebhook(env: TestEnv, event: unknown, secret = env.services.config.orders.test.webhookSecret) {
  const payload = JSON.stringify(event);
  return request(env, 'POST', '/webhooks/payments/test', {
    body: payload,
    headers: { 'stripe-signature': signWebhook(payload, secret) },
  });
}

/** Polls get_order until its status is one of `statuses` (or fails after `timeoutMs`). */
export async function waitForOrder(env: TestEnv, key: string, number: string, statuses: string[], timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(env, 'GET', `/orders/${number}`, { key });
    if (statuses.includes(res.body?.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`order ${number} is ${res.body?.status}, not ${statuses.join('/')}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/**
 * Features a listing from this week on: a paid order with one `featured` line, fulfilled by the
 * real fulfilment (which writes the placements), without a checkout or a workflow.
 */
export async function featureListing(db: Db, listingId: number, weeks = 1): Promise<void> {
  const { site_id: siteId } = (await db('listings').where({ id: listingId }).first('site_id'))!;
  const user = await createUser(db, `featured-${listingId}-${randomUUID()}@example.com`);
  const [order] = await db('orders')
    .insert({
      site_id: siteId,
      user_id: user.id,
      number: `F-${randomUUID()}`,
      checkout_token: randomUUID(),
      status: 'paid',
      quote: '{}',
      billing: '{}',
      total_cents: 0,
      expires_at: new Date(Date.now() + 86_400_000),
      paid_at: new Date(),
    })
    .returning('id');
  const [line] = await db('order_lines')
    .insert({
      order_id: order.id,
      position: 1,
      product: 'featured',
      listing_id: listingId,
      options: { weeks },
      unit: 'week',
      quantity: weeks,
      unit_price_cents: 0,
      amount_cents: 0,
      discount_cents: 0,
      net_cents: 0,
      vat_cents: 0,
    })
    .returning('id');
  await fulfilLine({ db, workflows: null as never, now: new Date() }, line.id);
}

/**
 * Checks out `items` with the buyer's key, pays the order by the provider's signed webhook, and
 * waits until it is in one of `until` (fulfilled by default); returns its number.
 */
export async function paidOrder(env: TestEnv, key: string, items: unknown[], until = ['fulfilled']): Promise<string> {
  const res = await checkout(env, key, { items, billing_country: 'US' });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  await postWebhook(env, succeededEvent(res.body.number, res.body.total_cents));
  await waitForOrder(env, key, res.body.number, until);
  return res.body.number as string;
}

/**
 * A paid one-week featured order whose fulfilment fails (the placements table refuses writes, as
 * in a maintenance gone wrong) until `fix` runs: a stuck order for the site team to replay.
 */
export async function stuckOrder(env: TestEnv, weekStart: string) {
  const db = env.services.db;
  await db.raw(`CREATE FUNCTION refuse_placements() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'featured_placements is read-only for maintenance'; END $$`);
  await db.raw(`CREATE TRIGGER refuse_placements BEFORE INSERT ON featured_placements FOR EACH ROW EXECUTE FUNCTION refuse_placements()`);
  const buyer = await env.user(['account:read', 'orders:write', 'listings:write']);
  const tag = randomUUID().slice(0, 8);
  const listing = await insertLiveListing(db, { name: `Stuck Co ${tag}`, ownerId: buyer.userId, url: `https://s-${tag}.example/` });
  const items = [{ product: 'featured', listing_id: listing, options: { weeks: 1, start_week: weekStart } }];
  const number = await paidOrder(env, buyer.key, items, ['attention']);
  return { number, buyer, fix: () => db.raw('DROP FUNCTION IF EXISTS refuse_placements() CASCADE') };
}
