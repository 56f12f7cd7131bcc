import test from 'ava';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { promo } from '../helpers/orders.ts';

/** The four order operations as MCP tools: the same results and problems as REST. */

let env: TestEnv;
let call: ReturnType<typeof mcpParity>;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  call = mcpParity(env);
});
test.after.always(async () => {
  await call?.close();
  await env?.close();
});

const db = () => env.services.db;
const withoutVolatile = (order: Record<string, unknown>) => {
  const { number: _n, checkout_url: _c, expires_at: _e, created_at: _t, ...rest } = order;
  return rest;
};

test('quote_order, create_checkout, list_my_orders and get_order answer alike over MCP and REST', async (t) => {
  const owner = await env.user();
  const listingId = await insertLiveListing(db(), { name: 'Parity Goods', ownerId: owner.userId });
  const code = await promo(db(), { percent: 20 });
  const body = {
    items: [
      { product: 'featured', listing_id: listingId, options: { weeks: 2 } },
      { product: 'categories', listing_id: listingId, options: { categories: ['ai'] } },
    ],
    billing_country: 'DE',
    promo_code: code,
  };
  const mcpQuote = await call.viaMcp(owner.key, 'quote_order', body);
  const restQuote = await call.viaRest(owner.key, 'quote_order', body);
  t.false(mcpQuote.error);
  t.deepEqual(mcpQuote.body, restQuote.body);

  const mcpOrder = await call.viaMcp(owner.key, 'create_checkout', { ...body, idempotency_key: 'mcp-1' });
  t.false(mcpOrder.error, JSON.stringify(mcpOrder.body));
  const again = await call.viaMcp(owner.key, 'create_checkout', { ...body, idempotency_key: 'mcp-1' });
  t.is(again.body.number, mcpOrder.body.number);
  const restOrder = await call.viaRest(owner.key, 'create_checkout', body);
  t.is(restOrder.status, 201);
  t.deepEqual(withoutVolatile(mcpOrder.body), withoutVolatile(restOrder.body));
  t.deepEqual(mcpOrder.body.vat, restQuote.body.vat);

  const got = await call.viaMcp(owner.key, 'get_order', { number: mcpOrder.body.number });
  t.deepEqual(got.body, (await call.viaRest(owner.key, 'get_order', { number: mcpOrder.body.number })).body);
  const listed = await call.viaMcp(owner.key, 'list_my_orders', { per_page: 5 });
  t.deepEqual(listed.body, (await call.viaRest(owner.key, 'list_my_orders', { per_page: 5 })).body);
  t.is(listed.body.total, 2);

  // Problems are the same objects too.
  const bad = { ...body, promo_code: 'NOT-A-CODE' };
  const mcpBad = await call.viaMcp(owner.key, 'quote_order', bad);
  const restBad = await call.viaRest(owner.key, 'quote_order', bad);
  t.true(mcpBad.error);
  t.is(restBad.status, 422);
  t.like(mcpBad.body, { code: 'promo_code_invalid', reason: 'unknown', status: 422 });
  t.is(mcpBad.body.reason, restBad.body.reason);
  const stranger = await env.user();
  const foreign = await call.viaMcp(stranger.key, 'get_order', { number: mcpOrder.body.number });
  t.like(foreign, { error: true, body: { code: 'not_found', status: 404 } });
  const badItem = await call.viaMcp(owner.key, 'quote_order', {
    ...body,
    promo_code: undefined,
    items: [{ product: 'featured', listing_id: listingId, options: { weeks: 40 } }],
  });
  t.like(badItem.body, { code: 'validation_failed', errors: [{ path: 'items.0.options.weeks' }] });
});

test('sold_out is the same problem over MCP and REST, with what is available', async (t) => {
  const [first, second] = [await env.user(), await env.user()];
  const mine = await insertLiveListing(db(), { name: 'Board First', ownerId: first.userId });
  const theirs = await insertLiveListing(db(), { name: 'Board Second', ownerId: second.userId });
  const start = new Date(Date.now() + 150 * 86_400_000).toISOString().slice(0, 10);
  const board = (listingId: number) => ({
    items: [{ product: 'billboard', listing_id: listingId, options: { start_date: start, days: 7 } }],
    billing_country: 'US',
  });
  t.is((await call.viaRest(first.key, 'create_checkout', board(mine))).status, 201);
  const viaMcp = await call.viaMcp(second.key, 'create_checkout', board(theirs));
  const viaRest = await call.viaRest(second.key, 'create_checkout', board(theirs));
  t.true(viaMcp.error);
  t.is(viaRest.status, 409);
  t.like(viaMcp.body, { code: 'sold_out', status: 409, errors: [{ path: 'items.0.options.start_date' }] });
  t.deepEqual(viaMcp.body.available, viaRest.body.available);
  t.is(viaMcp.body.detail, viaRest.body.detail);
});
