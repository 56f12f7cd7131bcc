import { randomBytes } from 'node:crypto';
import test from 'ava';
import { STAFF_PASSWORD, staffPerson } from '../helpers/staff-cast.ts';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { grant, revoke, type StaffRole } from '../../src/domain/staff/roles.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { paidOrder as payFor } from '../helpers/orders.ts';

/**
 * The staff operations over REST and MCP, role by role: admin (every site), support and moderator
 * (this site), a person with no role, a role revoked after its key was made, and the admin of
 * another site; and the audit row each action writes.
 */

const clock = new ManualClock(new Date());
let env: TestEnv;
let parity: ReturnType<typeof mcpParity>;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { CATALOG_CACHE_TTL_MS: '0' }, { clock });
  await env.startWorkers();
  parity = mcpParity(env);
});
test.after.always(async () => {
  await parity?.close();
  await env?.close();
});

const db = () => env.services.db;
const person = (roles: StaffRole[], scopes: Scope[], site: string | null = 'main') => staffPerson(env, clock, roles, scopes, site);
const unique = () => randomBytes(4).toString('hex');
const PASSWORD = STAFF_PASSWORD;
const siteId = async (key: string) => (await db()('sites').where({ key }).first('id'))!.id;

/** A person with `roles` (on `site`, or every site) and a key with `scopes`. */
/** A buyer's paid and fulfilled two-line order (featured + categories) on the main site. */
async function paidOrder() {
  const buyer = await env.user(['account:read', 'orders:write', 'listings:write']);
  const featured = await insertLiveListing(db(), {
    name: `Staff Featured ${unique()}`,
    ownerId: buyer.userId,
    url: `https://f-${unique()}.example/`,
  });
  const placed = await insertLiveListing(db(), {
    name: `Staff Placed ${unique()}`,
    ownerId: buyer.userId,
    url: `https://p-${unique()}.example/`,
  });
  await db()('listings').where({ id: placed }).update({ categories: [] });
  const items = [
    { product: 'featured', listing_id: featured, options: { weeks: 1, start_week: isoWeekStart(clock.now()) } },
    { product: 'categories', listing_id: placed, options: { categories: ['analytics'] } },
  ];
  return { number: await payFor(env, buyer.key, items), buyer, featured, placed };
}

type Actor = Awaited<ReturnType<typeof person>>;
let cast: Record<'admin' | 'support' | 'moderator' | 'nonStaff' | 'revoked' | 'otherSite', Actor>;

test.serial.before(async () => {
  const ALL: Scope[] = ['staff:orders', 'staff:listings', 'staff:audit'];
  cast = {
    admin: await person(['admin'], ALL, null),
    support: await person(['support'], ['staff:orders']),
    moderator: await person(['moderator'], ['staff:listings']),
    nonStaff: await person([], ['account:read']),
    revoked: await person(['support'], ['staff:orders']),
    otherSite: await person(['admin'], ALL, 'makers'),
  };
  await revoke(db(), { userId: cast.revoked.userId, role: 'support', siteId: await siteId('main'), by: null, now: clock.now() });
});

/**
 * A tool call; a token without the tool's scope is refused at the HTTP level (403 with a
 * WWW-Authenticate step-up challenge), which the client raises as InsufficientScopeError.
 */
async function mcpCall(key: string, name: string, args: Record<string, unknown>) {
  try {
    return await parity.viaMcp(key, name, args);
  } catch (err) {
    if ((err as Error).constructor.name !== 'InsufficientScopeError') throw err;
    return { error: true, body: { status: 403, code: 'insufficient_scope' } };
  }
}

/** The same call over REST and MCP: both answer `status` (and `code` when refused). */
async function both(t: any, who: keyof typeof cast, name: string, args: Record<string, unknown>, status: number, code?: string) {
  const key = cast[who].key;
  const rest = await parity.viaRest(key, name, args);
  t.is(rest.status, status, `${who} ${name} over REST: ${rest.text}`);
  if (code) t.is(rest.body.code, code, `${who} ${name} over REST`);
  if (status === 200 && name === 'staff_refund_order_line') return rest; // a refund is done once
  const mcp = await mcpCall(key, name, args);
  t.is(mcp.error, status >= 400, `${who} ${name} over MCP: ${JSON.stringify(mcp.body)}`);
  if (code) t.like(mcp.body, { status, code }, `${who} ${name} over MCP`);
  return rest;
}

test.serial('a key gets a staff scope only when its person holds a role that allows it', async (t) => {
  const user = await createVerifiedUser(db(), `keys-${unique()}@example.com`, PASSWORD);
  await t.throwsAsync(createApiKey(db(), user.id, 'k', ['staff:orders']), { message: /staff:orders need a staff role/ });
  await grant(db(), { userId: user.id, role: 'moderator', siteId: null, by: null, now: clock.now() });
  await t.throwsAsync(createApiKey(db(), user.id, 'k', ['staff:listings', 'staff:orders']), { message: /scope\(s\) staff:orders need/ });
  await t.notThrowsAsync(createApiKey(db(), user.id, 'k', ['staff:listings', 'account:read']));
  await grant(db(), { userId: user.id, role: 'support', siteId: await siteId('makers'), by: null, now: clock.now() });
  await t.notThrowsAsync(createApiKey(db(), user.id, 'k', ['staff:orders']));
  await t.throwsAsync(createApiKey(db(), user.id, 'k', ['staff:audit']), { message: /staff:audit/ });
});

test.serial('staff_search_orders: admin and support find this site’s orders by email; everyone else is refused', async (t) => {
  const { number, buyer } = await paidOrder();
  const args = { email: buyer.email.toUpperCase() };
  for (const who of ['admin', 'support'] as const) {
    const res = await both(t, who, 'staff_search_orders', args, 200);
    t.deepEqual(
      res.body.items.map((o: { number: string }) => o.number),
      [number],
    );
    t.like(res.body.items[0], { email: buyer.email, status: 'fulfilled' });
  }
  await both(t, 'moderator', 'staff_search_orders', args, 403, 'insufficient_scope');
  await both(t, 'nonStaff', 'staff_search_orders', args, 403, 'insufficient_scope');
  await both(t, 'revoked', 'staff_search_orders', args, 403, 'staff_role_required');
  await both(t, 'otherSite', 'staff_search_orders', args, 404, 'not_found');
  // Bad filters are a 400 naming them, never a 500.
  const bad = await parity.viaRest(cast.support.key, 'staff_search_orders', { status: 'lost', from: 'yesterday' });
  t.is(bad.status, 400);
  t.deepEqual(bad.body.errors.map((e: { path: string }) => e.path).sort(), ['from', 'status']);
});

test.serial(
  'staff_get_order: admin and support read an order in full (lines with their weeks, payments, workflow id); audited',
  async (t) => {
    const { number, buyer, featured } = await paidOrder();
    for (const who of ['admin', 'support'] as const) {
      const res = await both(t, who, 'staff_get_order', { number }, 200);
      t.like(res.body, { number, status: 'fulfilled', email: buyer.email, workflow_id: `order:${number}`, refunds: [] });
      t.like(res.body.lines[0], { position: 0, product: 'featured', listing_id: featured, refunded_at: null, ended: [] });
      t.is(res.body.lines[0].weeks.length, 1);
      t.true(res.body.payments.length > 0);
    }
    await both(t, 'moderator', 'staff_get_order', { number }, 403, 'insufficient_scope');
    await both(t, 'nonStaff', 'staff_get_order', { number }, 403, 'insufficient_scope');
    await both(t, 'revoked', 'staff_get_order', { number }, 403, 'staff_role_required');
    await both(t, 'otherSite', 'staff_get_order', { number }, 404, 'not_found');
    const rows = await db()('staff_audit').where({ operation: 'staff_get_order', target_id: number });
    // admin and support, each over REST and MCP
    t.is(rows.length, 4);
    t.like(rows[0], { target_kind: 'order', user_id: cast.admin.userId, role: 'admin' });
  },
);

test.serial('staff_refund_order_line: support and admin refund a line, which ends what it bought; the audit row says it all', async (t) => {
  const { number, featured, placed } = await paidOrder();
  const refuse = { number, line: 1, reason: 'asked by the buyer' };
  await both(t, 'moderator', 'staff_refund_order_line', refuse, 403, 'insufficient_scope');
  await both(t, 'nonStaff', 'staff_refund_order_line', refuse, 403, 'insufficient_scope');
  await both(t, 'revoked', 'staff_refund_order_line', refuse, 403, 'staff_role_required');
  await both(t, 'otherSite', 'staff_refund_order_line', refuse, 404, 'not_found');
  t.is((await db()('staff_audit').where({ operation: 'staff_refund_order_line', target_id: number })).length, 0);
  t.is(
    (await db()('order_lines as l').join('orders as o', 'o.id', 'l.order_id').where('o.number', number).whereNotNull('l.refunded_at'))
      .length,
    0,
  );

  // Support refunds the featured line over REST, with a request id to find it by.
  const res = await parity.viaRest(
    cast.support.key,
    'staff_refund_order_line',
    { number, line: 0, reason: 'double charge' },
    { 'x-request-id': `refund-${number}` },
  );
  t.is(res.status, 200, res.text);
  t.like(res.body, { number, status: 'fulfilled', refunded: [{ position: 0, product: 'featured', listing_id: featured }] });
  t.is(res.body.refunded[0].ended[0].kind, 'featured');
  t.deepEqual(await db()('featured_placements').where({ listing_id: featured }), []);

  const rows = await db()('staff_audit').where({ operation: 'staff_refund_order_line', target_id: number });
  t.is(rows.length, 1);
  const row = rows[0]!;
  t.like(row, {
    user_id: cast.support.userId,
    role: 'support',
    factor: null,
    target_kind: 'order',
    request_id: `refund-${number}`,
    site_id: await siteId('main'),
  });
  t.deepEqual(row.input, { number, line: 0, reason: 'double charge' });
  t.like(row.before, {
    status: 'fulfilled',
    lines: [
      { position: 0, refunded: false },
      { position: 1, refunded: false },
    ],
  });
  t.like(row.after, { status: 'fulfilled', amount_cents: res.body.amount_cents, refunded: [{ position: 0, product: 'featured' }] });
  t.regex((row.after as any).refunded[0].ended[0].text, /is no longer featured/);
  const text = JSON.stringify(row);
  for (const secret of [cast.support.key, PASSWORD, 'key_hash', 'password']) t.false(text.includes(secret), secret);

  // The admin refunds the rest over MCP; a second refund of it is a 409 on both transports.
  const mcp = await parity.viaMcp(cast.admin.key, 'staff_refund_order_line', { number, reason: 'rest of the order' });
  t.false(mcp.error, JSON.stringify(mcp.body));
  t.like(mcp.body, { status: 'refunded', refunded: [{ position: 1, listing_id: placed }] });
  await both(t, 'support', 'staff_refund_order_line', { number, reason: 'again' }, 409, 'already_refunded');
  const adminRow = await db()('staff_audit')
    .where({ operation: 'staff_refund_order_line', target_id: number, user_id: cast.admin.userId })
    .first();
  t.like(adminRow, { role: 'admin', after: { status: 'refunded' } });
});

test.serial('staff_list_audit and staff_export_audit: admins only, filtered and paged, CSV or JSON', async (t) => {
  const args = { user: cast.support.email, operation: 'staff_refund_order_line' };
  for (const who of ['support', 'moderator', 'nonStaff'] as const) await both(t, who, 'staff_list_audit', args, 403, 'insufficient_scope');
  await both(t, 'otherSite', 'staff_list_audit', args, 404, 'not_found');
  const listed = await both(t, 'admin', 'staff_list_audit', { ...args, per_page: 1 }, 200);
  t.like(listed.body, { page: 1, per_page: 1, total: 1 });
  t.like(listed.body.items[0], {
    user_email: cast.support.email,
    role: 'support',
    operation: 'staff_refund_order_line',
    target_kind: 'order',
  });
  const tomorrow = new Date(clock.now().getTime() + 86_400_000).toISOString().slice(0, 10);
  t.is((await parity.viaRest(cast.admin.key, 'staff_list_audit', { ...args, from: tomorrow })).body.total, 0);
  t.is((await parity.viaRest(cast.admin.key, 'staff_list_audit', { from: 'soon' })).status, 400);

  const csv = await parity.viaRest(cast.admin.key, 'staff_export_audit', { ...args, format: 'csv' });
  t.is(csv.status, 200, csv.text);
  t.like(csv.body, { format: 'csv', count: 1, truncated: false, content_type: 'text/csv; charset=utf-8' });
  const [header, line] = csv.body.content.trim().split('\r\n');
  t.true(header.startsWith('id,at,user_id,user_email,role,factor,operation'));
  t.regex(line, /staff_refund_order_line,order,/);
  const json = await parity.viaMcp(cast.admin.key, 'staff_export_audit', { ...args, format: 'json' });
  t.is(JSON.parse(json.body.content)[0].operation, 'staff_refund_order_line');
  await both(t, 'support', 'staff_export_audit', {}, 403, 'insufficient_scope');

  // Reading and searching are staff actions too.
  const reads = await db()('staff_audit')
    .where({ user_id: cast.admin.userId })
    .whereIn('operation', ['staff_list_audit', 'staff_export_audit']);
  t.true(reads.length >= 3);
  t.true((await db()('staff_audit').where({ user_id: cast.support.userId, operation: 'staff_search_orders' })).length >= 2);
});

test.serial('no one can change or remove an audit row: the database refuses UPDATE, DELETE and TRUNCATE', async (t) => {
  const before = await db()('staff_audit').count<{ n: string }[]>('* as n');
  await t.throwsAsync(db()('staff_audit').update({ operation: 'nothing happened' }), { message: /append-only: UPDATE refused/ });
  await t.throwsAsync(db()('staff_audit').delete(), { message: /append-only: DELETE refused/ });
  await t.throwsAsync(db().raw('TRUNCATE staff_audit'), { message: /append-only: TRUNCATE refused/ });
  t.deepEqual(await db()('staff_audit').count<{ n: string }[]>('* as n'), before);
});
