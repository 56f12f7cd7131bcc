import test from 'ava';
import { admin, adminInProcess } from '../helpers/admin.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { checkout, inDays, postWebhook, quote, succeededEvent, waitForOrder } from '../helpers/orders.ts';

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { CATALOG_CACHE_TTL_MS: '0', ORDER_FULFIL_MAX_ATTEMPTS: '1' });
  await env.startWorkers();
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const run = (...args: string[]) => adminInProcess(env, ...args);
const products = async () =>
  (await api(env, 'GET', '/products', { headers: { host: 'makers.localhost' } })).body.items as { key: string; price_cents: number }[];

test.serial('products:list, set-price and set-active change what list_products shows and what checkout snapshots', async (t) => {
  const listed = await admin(env, 'products:list', '--site', 'makers');
  t.is(listed.code, 0, listed.stderr);
  t.regex(listed.stdout, /makers\tfeatured\t9900\tactive\tFeatured placement/);
  t.is((await run('products:set-price', '--site', 'makers', '--product', 'featured', '--cents', '12345')).code, 0);
  t.is((await products()).find((p) => p.key === 'featured')!.price_cents, 12345);
  t.is((await run('products:set-active', '--site', 'makers', '--product', 'billboard', '--active', 'false')).code, 0);
  t.false((await products()).some((p) => p.key === 'billboard'));
  t.is((await run('products:set-active', '--site', 'makers', '--product', 'billboard', '--active', 'true')).code, 0);
  const bad = await run('products:set-price', '--site', 'makers', '--product', 'featured', '--cents=-5');
  t.is(bad.code, 1);
  t.is((await run('products:set-price', '--site', 'makers', '--product', 'nope', '--cents', '5')).code, 1);
  t.is((await run('products:set-price', '--site', 'nowhere', '--product', 'featured', '--cents', '5')).code, 1);
});

test.serial('promos:create, promos:list and promos:disable', async (t) => {
  const created = await run(
    'promos:create',
    '--site',
    'main',
    '--code',
    'Spring25',
    '--percent',
    '25',
    '--max-redemptions',
    '10',
    '--per-account',
    '1',
    '--first-order-only',
    '--min-net-cents',
    '1000',
    '--products',
    'featured,launch',
    '--expires',
    '2099-01-01T00:00:00Z',
  );
  t.is(created.code, 0, created.stderr);
  const row = await db()('promo_codes').where({ code: 'Spring25' }).first();
  t.like(row, {
    percent_bp: 2500,
    max_redemptions: 10,
    per_account: 1,
    first_order_only: true,
    min_net_cents: 1000,
    products: ['featured', 'launch'],
  });
  t.is((await run('promos:create', '--site', 'main', '--code', 'spring25', '--amount-cents', '100')).code, 1);
  t.is((await run('promos:create', '--site', 'main', '--code', 'BOTH', '--amount-cents', '100', '--percent', '5')).code, 1);
  t.is((await run('promos:create', '--site', 'main', '--code', 'BADPROD', '--percent', '5', '--products', 'moon')).code, 1);
  t.regex((await run('promos:list', '--site', 'main')).stdout, /main\tSpring25\t25%\t0\t0\t10\tenabled/);
  const user = await env.user();
  const listingId = await insertLiveListing(db(), { name: 'Promo Admin', ownerId: user.userId });
  const body = {
    items: [{ product: 'featured', listing_id: listingId, options: { weeks: 1 } }],
    billing_country: 'US',
    promo_code: ' SPRING25 ',
  };
  t.is((await quote(env, user.key, body)).body.promo.code, 'Spring25');
  t.is((await run('promos:disable', '--site', 'main', '--code', 'spring25')).code, 0);
  t.like((await quote(env, user.key, body)).body, { code: 'promo_code_invalid', reason: 'unknown' });
});

test.serial('orders:show, orders:retry after attention, orders:refund', async (t) => {
  const user = await env.user();
  const listingId = await insertLiveListing(db(), { name: 'Support Case', ownerId: user.userId });
  const body = {
    items: [
      { product: 'billboard', listing_id: listingId, options: { start_date: inDays(200), days: 7 } },
      { product: 'featured', listing_id: listingId, options: { weeks: 1 } },
    ],
    billing_country: 'IE',
  };
  // A fault support must look at (booking a product twice is impossible: capacity is held at
  // checkout): the placements table refuses writes, so the featured line fails its one try.
  await db().raw(`CREATE FUNCTION refuse_placements() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'featured_placements is read-only for maintenance'; END $$`);
  await db().raw(`CREATE TRIGGER refuse_placements BEFORE INSERT ON featured_placements FOR EACH ROW EXECUTE FUNCTION refuse_placements()`);
  t.teardown(() => db().raw('DROP FUNCTION IF EXISTS refuse_placements() CASCADE'));
  const stuck = (await checkout(env, user.key, body)).body;
  await postWebhook(env, succeededEvent(stuck.number, stuck.total_cents));
  await waitForOrder(env, user.key, stuck.number, ['attention']);

  const shown = await run('orders:show', '--number', stuck.number);
  t.is(shown.code, 0, shown.stderr);
  t.regex(shown.stdout, new RegExp(`order ${stuck.number}\\tattention\\tline \\d+ \\(featured\\): .*read-only for maintenance`));
  t.regex(shown.stdout, /line 1\tfeatured\t.*not fulfilled/);
  t.regex(shown.stdout, /event test:evt_/);

  // Support fixes the cause, then retries the stuck order.
  await db().raw('DROP FUNCTION refuse_placements() CASCADE');
  const retried = await run('orders:retry', '--number', stuck.number);
  t.is(retried.code, 0, retried.stderr);
  t.regex(retried.stdout, /^(updated|restarted) order:/);
  const done = await waitForOrder(env, user.key, stuck.number, ['fulfilled']);
  t.true(done.lines.every((l: { fulfilled: boolean }) => l.fulfilled));
  t.is((await run('orders:retry', '--number', stuck.number)).code, 1);

  const line = await run('orders:refund', '--number', stuck.number, '--line', '1');
  t.is(line.code, 0, line.stderr);
  t.is((await run('orders:refund', '--number', stuck.number, '--line', '1')).code, 1);
  t.is((await run('orders:refund', '--number', stuck.number)).code, 0);
  const order = await db()('orders').where({ number: stuck.number }).first();
  t.is(order!.status, 'refunded');
  const refunds = await db()('refunds').where({ order_id: order!.id }).orderBy('id');
  t.is(
    refunds.reduce((s: number, r: { amount_cents: number }) => s + r.amount_cents, 0),
    stuck.total_cents,
  );
  t.is((await run('orders:show', '--number', 'LD-NOPE-NOPE')).code, 1);
});
