import test from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { checkout, promo, quote } from '../helpers/orders.ts';
import { temporalClient } from '../helpers/workflows.ts';

type User = { userId: number; key: string; email: string };
let env: TestEnv;
let owner: User;
let other: User;
let listingId: number;

test.before(async () => {
  env = await startTestEnv(import.meta.url, { ORDER_CHECKOUT_TTL_SECONDS: '3600' });
  [owner, other] = await Promise.all([env.user(), env.user()]);
  listingId = await insertLiveListing(env.services.db, { name: 'Checkout Rockets', ownerId: owner.userId });
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const body = (extra: Record<string, unknown> = {}) => ({
  items: [{ product: 'featured', listing_id: listingId, options: { weeks: 2 } }],
  billing_country: 'IE',
  ...extra,
});

test('create_checkout saves a pending order, starts order:{number} and returns an unguessable checkout link', async (t) => {
  const res = await checkout(env, owner.key, body(), 'ck-1');
  t.is(res.status, 201, JSON.stringify(res.body));
  const o = res.body;
  t.regex(o.number, /^LD-[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/);
  t.is(o.status, 'pending');
  t.regex(o.checkout_url, new RegExp(`^${env.baseUrl}/checkout/[A-Za-z0-9_-]{43}$`));
  t.false(o.checkout_url.includes(o.number));
  const ttl = Date.parse(o.expires_at) - Date.now();
  t.true(ttl > 3500_000 && ttl <= 3600_000, String(ttl));
  t.like(o, {
    vat: { treatment: 'domestic', rate_bp: 2300 },
    billing: { country: 'IE', vat_number: null, name: null },
    paid_at: null,
    invoice_url: null,
  });
  t.like(o.lines[0], { product: 'featured', listing_id: listingId, options: { weeks: 2 }, fulfilled: false, fulfilled_at: null });
  t.is(o.total_cents, o.net_cents + o.vat.amount_cents);

  const { client, close } = await temporalClient(env);
  try {
    const description = await client.workflow.getHandle(`order:${o.number}`).describe();
    t.is(description.taskQueue, 'orders');
    t.is(description.type, 'orderWorkflow');
    t.deepEqual(description.searchAttributes.OrderNumber, [o.number]);
    t.deepEqual(description.searchAttributes.ListingId, [listingId]);
  } finally {
    await close();
  }

  const replay = await checkout(env, owner.key, body(), 'ck-1');
  t.is(replay.status, 201);
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(replay.body, o);
  t.is((await checkout(env, owner.key, body({ billing_country: 'DE' }), 'ck-1')).status, 422);
  t.is(Number((await db()('orders').where({ number: o.number }).count({ n: '*' }))[0].n), 1);
});

test('get_order and list_my_orders show only your own orders, newest first', async (t) => {
  // Its own owner: the other tests run concurrently.
  const owner = await env.user();
  const listingId = await insertLiveListing(db(), { name: 'Lister', ownerId: owner.userId });
  const mine = (extra: Record<string, unknown> = {}) => ({
    ...body(extra),
    items: [{ product: 'featured', listing_id: listingId, options: { weeks: 2 } }],
  });
  const a = (await checkout(env, owner.key, mine())).body;
  const b = (await checkout(env, owner.key, mine({ billing_country: 'US' }))).body;
  const got = await api(env, 'GET', `/orders/${b.number}`, { key: owner.key });
  t.is(got.status, 200);
  t.deepEqual(got.body, b);
  t.is((await api(env, 'GET', `/orders/${b.number.toLowerCase()}`, { key: owner.key })).status, 200);
  const foreign = await api(env, 'GET', `/orders/${b.number}`, { key: other.key });
  t.is(foreign.status, 404);
  t.is(foreign.body.code, 'not_found');
  t.is((await api(env, 'GET', '/orders/LD-NOPE-NOPE', { key: owner.key })).status, 404);
  const list = await api(env, 'GET', '/orders?per_page=2', { key: owner.key });
  t.is(list.status, 200);
  t.deepEqual(
    list.body.items.map((o: { number: string }) => o.number),
    [b.number, a.number],
  );
  t.true(list.body.total >= 2);
  t.deepEqual((await api(env, 'GET', '/orders', { key: other.key })).body, { items: [], page: 1, per_page: 20, total: 0 });

  // listing_id: the orders with a line for that listing; another account's listing shows none of them.
  const second = await insertLiveListing(db(), { name: 'Second Lister', ownerId: owner.userId });
  const c = (await checkout(env, owner.key, { ...body(), items: [{ product: 'featured', listing_id: second, options: { weeks: 1 } }] }))
    .body;
  const ofFirst = await api(env, 'GET', `/orders?listing_id=${listingId}`, { key: owner.key });
  t.deepEqual(
    ofFirst.body.items.map((o: { number: string }) => o.number),
    [b.number, a.number],
  );
  t.is(ofFirst.body.total, 2);
  t.deepEqual(
    (await api(env, 'GET', `/orders?listing_id=${second}`, { key: owner.key })).body.items.map((o: { number: string }) => o.number),
    [c.number],
  );
  t.deepEqual((await api(env, 'GET', `/orders?listing_id=${listingId}`, { key: other.key })).body.items, []);
  const bad = await api(env, 'GET', '/orders?listing_id=abc', { key: owner.key });
  t.is(bad.status, 400);
  t.is(bad.body.errors[0].path, 'listing_id');
});

test('scopes: quote and checkout need orders:write, reading needs account:read', async (t) => {
  const reader = await env.user(['account:read']);
  t.is((await checkout(env, reader.key, body())).status, 403);
  t.is((await api(env, 'POST', '/orders/quote', { key: reader.key, body: body() })).status, 403);
  const writer = await env.user(['orders:write']);
  t.is((await api(env, 'GET', '/orders', { key: writer.key })).status, 403);
  t.is((await api(env, 'POST', '/orders/checkout', { body: body() })).status, 401);
});

test('a promo cap holds under 20 concurrent checkouts', async (t) => {
  const code = await promo(db(), { maxRedemptions: 3, amountCents: 100 });
  const buyers = await Promise.all(Array.from({ length: 20 }, () => env.user()));
  const listings = await Promise.all(buyers.map((u, i) => insertLiveListing(db(), { name: `Racer ${i}`, ownerId: u.userId })));
  const results = await Promise.all(
    buyers.map((u, i) =>
      checkout(env, u.key, {
        items: [{ product: 'featured', listing_id: listings[i], options: { weeks: 1 } }],
        billing_country: 'US',
        promo_code: code,
      }),
    ),
  );
  const statuses = results.map((r) => r.status).sort();
  t.is(statuses.filter((s) => s === 201).length, 3, JSON.stringify(statuses));
  t.true(results.filter((r) => r.status !== 201).every((r) => r.status === 422 && r.body.reason === 'exhausted'));
  const promoRow = await db()('promo_codes').whereRaw('lower(code) = lower(?)', [code]).first('id');
  t.is(Number((await db()('promo_redemptions').where({ promo_code_id: promoRow!.id }).count({ n: '*' }))[0].n), 3);
});

test("quotes keep the caller's listings for CATALOG_CACHE_TTL_MS; a listing just given to someone is found at once, and checkout reads the table", async (t) => {
  const [giver, taker] = [await env.user(), await env.user()];
  const order = (id: number) => ({ items: [{ product: 'featured', listing_id: id, options: { weeks: 1 } }], billing_country: 'US' });
  const given = await insertLiveListing(db(), { name: 'Given Away', ownerId: giver.userId });
  t.is((await quote(env, giver.key, order(given))).status, 200);
  t.is((await quote(env, taker.key, order(given))).status, 404);
  await db()('listings').where({ id: given }).update({ owner_id: taker.userId });
  // Not among the taker's cached listings: looked up in the table.
  t.is((await quote(env, taker.key, order(given))).status, 200);
  t.is((await checkout(env, giver.key, order(given))).status, 404);
  t.is((await checkout(env, taker.key, order(given))).status, 201);
  await new Promise((r) => setTimeout(r, env.services.config.cache.catalogTtlMs + 50));
  t.is((await quote(env, giver.key, order(given))).status, 404);
});
