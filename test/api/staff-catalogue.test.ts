import { randomBytes } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { staffPerson } from '../helpers/staff-cast.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import type { StaffRole } from '../../src/domain/staff/roles.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { checkout, quote } from '../helpers/orders.ts';

/**
 * The catalogue's staff operations over REST and MCP: admins only (support, moderators and people
 * without a role are refused, another site's admin gets 404), the domain's refusals as clear
 * problems, every change audited with before and after, and a new price in the next quote even
 * while the product list is cached.
 */

const clock = new ManualClock(new Date());
let env: TestEnv;
let parity: ReturnType<typeof mcpParity>;
test.before(async () => {
  // A long product cache: a price change must reach quotes by itself, not by the cache running out.
  env = await startTestEnv(import.meta.url, { CATALOG_CACHE_TTL_MS: '600000' }, { clock });
  parity = mcpParity(env);
});
test.after.always(async () => {
  await parity?.close();
  await env?.close();
});

const db = () => env.services.db;
const person = (roles: StaffRole[], scopes: Scope[], site: string | null = 'main') => staffPerson(env, clock, roles, scopes, site);
const unique = () => randomBytes(4).toString('hex');
const siteId = async (key: string) => (await db()('sites').where({ key }).first('id'))!.id;

type Who = 'admin' | 'support' | 'moderator' | 'nonStaff' | 'otherSite';
let cast: Record<Who, Awaited<ReturnType<typeof person>>>;

test.serial.before(async () => {
  cast = {
    admin: await person(['admin'], ['staff:catalogue', 'staff:orders'], null),
    support: await person(['support'], ['staff:orders']),
    moderator: await person(['moderator'], ['staff:listings']),
    nonStaff: await person([], ['account:read']),
    otherSite: await person(['admin'], ['staff:catalogue'], 'makers'),
  };
});

const rest = (who: Who, name: string, args: Record<string, unknown>) => parity.viaRest(cast[who].key, name, args);

/** Everyone but this site's admin is refused, and nothing is audited for them. */
async function refusedToAllButAdmin(t: ExecutionContext, name: string, args: Record<string, unknown>) {
  const audited = async () => (await db()('staff_audit').where({ operation: name })).length;
  const before = await audited();
  for (const who of ['support', 'moderator', 'nonStaff'] as const) {
    const res = await rest(who, name, args);
    t.is(res.status, 403, `${who} ${name}: ${res.text}`);
    t.is(res.body.code, 'insufficient_scope');
  }
  const elsewhere = await rest('otherSite', name, args);
  t.is(elsewhere.status, 404, `otherSite ${name}: ${elsewhere.text}`);
  t.is(await audited(), before, `${name}: refusals change and record nothing`);
}

test.serial('each catalogue operation: admin only; support, moderator and no role 403; another site’s admin 404', async (t) => {
  const code = `ROLE${unique()}`;
  const calls: [string, Record<string, unknown>, number][] = [
    ['staff_list_products', {}, 200],
    ['staff_set_product_price', { product: 'billboard', price_cents: 2500 }, 200],
    ['staff_set_product_active', { product: 'billboard', active: true }, 200],
    ['staff_create_promo_code', { code, percent: 10 }, 201],
    ['staff_list_promo_codes', {}, 200],
    ['staff_disable_promo_code', { code }, 200],
    ['staff_get_catalogue_settings', {}, 200],
    ['staff_set_catalogue_settings', { paid_slots_per_week: 12 }, 200],
  ];
  for (const [name, args, status] of calls) {
    await refusedToAllButAdmin(t, name, args);
    const res = await rest('admin', name, args);
    t.is(res.status, status, `admin ${name}: ${res.text}`);
  }
  t.like(await db()('promo_codes').where({ code }).first(), { site_id: await siteId('main') });
});

test.serial('over MCP: the admin sets a price and reads it back; support is refused', async (t) => {
  const set = await parity.viaMcp(cast.admin.key, 'staff_set_product_price', { product: 'launch', price_cents: 4321 });
  t.false(set.error, JSON.stringify(set.body));
  t.like(set.body, { key: 'launch', price_cents: 4321, active: true });
  const listed = await parity.viaMcp(cast.admin.key, 'staff_list_products', {});
  t.is(listed.body.items.find((p: { key: string }) => p.key === 'launch').price_cents, 4321);
  await t.throwsAsync(parity.viaMcp(cast.support.key, 'staff_list_products', {}), { message: /staff:catalogue|scope/i });
});

test.serial('a new price is in the next quote at once, and the audit row has the old and the new price', async (t) => {
  const buyer = await env.user();
  const listing = await insertLiveListing(db(), {
    name: `Priced ${unique()}`,
    ownerId: buyer.userId,
    url: `https://p-${unique()}.example/`,
  });
  const body = { items: [{ product: 'featured', listing_id: listing, options: { weeks: 1 } }], billing_country: 'US' };
  const first = await quote(env, buyer.key, body);
  t.is(first.status, 200, first.text);
  const old = first.body.lines[0].unit_price_cents;
  const res = await rest('admin', 'staff_set_product_price', { product: 'featured', price_cents: old + 1111 });
  t.is(res.status, 200, res.text);
  t.is((await quote(env, buyer.key, body)).body.lines[0].unit_price_cents, old + 1111);
  const row = await db()('staff_audit')
    .where({ operation: 'staff_set_product_price', target_id: 'featured' })
    .orderBy('id', 'desc')
    .first();
  t.like(row, {
    user_id: cast.admin.userId,
    role: 'admin',
    target_kind: 'product',
    before: { price_cents: old, active: true },
    after: { price_cents: old + 1111, active: true },
  });
});

test.serial('bad input is a clear problem, never a 500, and changes nothing', async (t) => {
  const price = async () =>
    (await db()('products')
      .where({ site_id: await siteId('main'), key: 'categories' })
      .first())!.price_cents;
  const before = await price();
  const cases: [string, Record<string, unknown>, number, string, RegExp?][] = [
    ['staff_set_product_price', { product: 'categories', price_cents: -5 }, 400, 'validation_failed', /between 0 and 100000000/],
    ['staff_set_product_price', { product: 'categories', price_cents: 1_000_000_000_000 }, 400, 'validation_failed'],
    ['staff_set_product_price', { product: 'categories', price_cents: 9.5 }, 400, 'validation_failed'],
    ['staff_set_product_price', { product: 'moon', price_cents: 100 }, 404, 'not_found', /moon/],
    ['staff_set_product_active', { product: 'moon', active: false }, 404, 'not_found'],
    ['staff_create_promo_code', { code: 'TOOMUCH', percent: 150 }, 422, 'promo_code_refused', /at most 100/],
    ['staff_create_promo_code', { code: 'NOTHING', percent: 0 }, 422, 'promo_code_refused'],
    ['staff_create_promo_code', { code: 'BOTHWAYS', percent: 5, amount_cents: 100 }, 422, 'promo_code_refused', /not both/],
    ['staff_create_promo_code', { code: 'PLANETS', percent: 5, products: ['moon'] }, 422, 'promo_code_refused', /moon/],
    [
      'staff_create_promo_code',
      { code: 'BACKWARDS', percent: 5, starts_at: '2030-02-01T00:00:00Z', expires_at: '2030-01-01T00:00:00Z' },
      422,
      'promo_code_refused',
      /expire after it starts/,
    ],
    ['staff_create_promo_code', { code: 'x', percent: 5 }, 400, 'validation_failed', /3–40/],
    ['staff_create_promo_code', { code: 'SOON', percent: 5, starts_at: 'tomorrow' }, 400, 'validation_failed'],
    ['staff_disable_promo_code', { code: 'NOSUCHCODE' }, 404, 'not_found'],
    ['staff_set_catalogue_settings', {}, 400, 'nothing_to_change'],
    ['staff_set_catalogue_settings', { paid_slots_per_week: -1 }, 400, 'validation_failed'],
    ['staff_set_catalogue_settings', { seller_vat_id: 'IE6388047X' }, 400, 'validation_failed', /seller’s VAT ID/],
  ];
  for (const [name, args, status, code, detail] of cases) {
    const res = await rest('admin', name, args);
    t.is(res.status, status, `${name} ${JSON.stringify(args)}: ${res.text}`);
    t.is(res.body.code, code, `${name} ${JSON.stringify(args)}`);
    t.regex(res.headers.get('content-type') ?? '', /problem\+json/);
    if (detail) t.regex(res.body.detail, detail);
  }
  t.is(await price(), before);
  t.is(await db()('promo_codes').whereIn('code', ['TOOMUCH', 'NOTHING', 'BOTHWAYS', 'PLANETS', 'BACKWARDS']).first(), undefined);

  t.is((await rest('admin', 'staff_create_promo_code', { code: 'Twice', amount_cents: 500 })).status, 201);
  const again = await rest('admin', 'staff_create_promo_code', { code: ' twice ', percent: 5 });
  t.is(again.status, 409, again.text);
  t.is(again.body.code, 'promo_code_exists');
  // Two admins creating the same code at once: one wins, the other is told, no 500.
  const raced = await Promise.all([1, 2, 3].map(() => rest('admin', 'staff_create_promo_code', { code: 'RACED', percent: 5 })));
  t.deepEqual(raced.map((r) => r.status).sort(), [201, 409, 409]);
});

test.serial('promo codes list their uses: who, which order, when; disabling keeps the time it was first disabled', async (t) => {
  const created = await rest('admin', 'staff_create_promo_code', {
    code: 'USED10',
    percent: 10,
    max_redemptions: 5,
    products: ['featured'],
  });
  t.is(created.status, 201, created.text);
  t.like(created.body, { code: 'USED10', percent: 10, amount_cents: null, max_redemptions: 5, products: ['featured'], disabled_at: null });
  const buyer = await env.user();
  const listing = await insertLiveListing(db(), {
    name: `Promo ${unique()}`,
    ownerId: buyer.userId,
    url: `https://u-${unique()}.example/`,
  });
  const order = await checkout(env, buyer.key, {
    items: [{ product: 'featured', listing_id: listing, options: { weeks: 1 } }],
    billing_country: 'US',
    promo_code: 'used10',
  });
  t.is(order.status, 201, order.text);
  const listed = await rest('admin', 'staff_list_promo_codes', {});
  const used = listed.body.items.find((p: { code: string }) => p.code === 'USED10');
  t.like(used, { counted: 0, reserved: 1 });
  t.like(used.redemptions, [{ email: buyer.email, order_number: order.body.number, state: 'reserved' }]);

  const disabled = await rest('admin', 'staff_disable_promo_code', { code: 'used10' });
  t.is(disabled.status, 200, disabled.text);
  t.truthy(disabled.body.disabled_at);
  const twice = await rest('admin', 'staff_disable_promo_code', { code: 'USED10' });
  t.is(twice.body.disabled_at, disabled.body.disabled_at);
  const row = await db()('staff_audit').where({ operation: 'staff_disable_promo_code', target_id: 'USED10' }).orderBy('id').first();
  t.like(row, { target_kind: 'promo_code', before: { disabled_at: null }, after: { code: 'USED10' } });
});

test.serial('catalogue settings: paid slots and seller details, read and set, audited before and after', async (t) => {
  const set = await rest('admin', 'staff_set_catalogue_settings', {
    paid_slots_per_week: 7,
    seller_name: '  Listing Directory Ltd ',
    seller_vat_id: 'IE6388047V',
  });
  t.is(set.status, 200, set.text);
  t.like(set.body, { paid_slots_per_week: 7, seller_name: 'Listing Directory Ltd', seller_vat_id: 'IE6388047V', seller_country: 'IE' });
  t.deepEqual(set.body.missing_for_invoices, ['seller_address']);
  const read = await rest('admin', 'staff_get_catalogue_settings', {});
  t.deepEqual(read.body, set.body);
  const cleared = await rest('admin', 'staff_set_catalogue_settings', { seller_name: '' });
  t.like(cleared.body, { seller_name: null, paid_slots_per_week: 7 });
  const row = await db()('staff_audit').where({ operation: 'staff_set_catalogue_settings' }).orderBy('id', 'desc').first();
  t.like(row, { target_kind: 'site', target_id: 'main', before: { seller_name: 'Listing Directory Ltd' }, after: { seller_name: null } });
});
