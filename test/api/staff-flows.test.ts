import { randomBytes } from 'node:crypto';
import test from 'ava';
import { staffPerson } from '../helpers/staff-cast.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import type { StaffRole } from '../../src/domain/staff/roles.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { adminInProcess } from '../helpers/admin.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { stuckOrder, waitForOrder } from '../helpers/orders.ts';

/**
 * Stuck work for the site team over REST and MCP: staff_list_stuck_flows, staff_retry_flow and
 * staff_replay_order role by role, bad input, and a stuck order (its placements table refusing
 * writes) replayed through the operation with real Temporal until it is fulfilled.
 */

const clock = new ManualClock(new Date());
let env: TestEnv;
let parity: ReturnType<typeof mcpParity>;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { CATALOG_CACHE_TTL_MS: '0', ORDER_FULFIL_MAX_ATTEMPTS: '1' }, { clock });
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
const siteId = async (key: string) => (await db()('sites').where({ key }).first('id'))!.id;
const ago = (minutes: number) => new Date(clock.now().getTime() - minutes * 60_000);

type Actor = Awaited<ReturnType<typeof person>>;
let cast: Record<'admin' | 'support' | 'moderator' | 'nonStaff' | 'otherSite', Actor>;
test.serial.before(async () => {
  const STAFF: Scope[] = ['staff:flows', 'staff:orders'];
  cast = {
    admin: await person(['admin'], STAFF, null),
    support: await person(['support'], STAFF),
    moderator: await person(['moderator'], ['staff:listings']),
    nonStaff: await person([], ['account:read']),
    otherSite: await person(['admin'], STAFF, 'makers'),
  };
});

async function mcpCall(key: string, name: string, args: Record<string, unknown>) {
  try {
    return await parity.viaMcp(key, name, args);
  } catch (err) {
    if ((err as Error).constructor.name !== 'InsufficientScopeError') throw err;
    return { error: true, body: { status: 403, code: 'insufficient_scope' } };
  }
}

/** Refused the same way over REST and MCP. */
async function refused(t: any, who: keyof typeof cast, name: string, args: Record<string, unknown>, status: number, code: string) {
  const rest = await parity.viaRest(cast[who].key, name, args);
  t.is(rest.status, status, `${who} ${name} over REST: ${rest.text}`);
  t.is(rest.body.code, code, `${who} ${name} over REST`);
  const mcp = await mcpCall(cast[who].key, name, args);
  t.true(mcp.error, `${who} ${name} over MCP`);
  t.like(mcp.body, { status, code }, `${who} ${name} over MCP`);
}

async function stuckMail(minutes: number, extra: Record<string, unknown> = {}) {
  const [{ id }] = await db()('mail_outbox')
    .insert({ to_address: `stuck-${unique()}@example.com`, subject: 's', body_text: 'b', created_at: ago(minutes), ...extra })
    .returning('id');
  return String(id);
}

const refs = (items: { kind: string; ref: string }[]) => items.map((i) => `${i.kind}:${i.ref}`);

test.serial(
  'staff_list_stuck_flows: this site’s stuck work for admin and support; mail only for staff of every site; others refused',
  async (t) => {
    const mail = await stuckMail(120, { attempts: 8, last_error: '550 no such user', failed_at: ago(30) });
    const owner = await env.user();
    const [{ id: makersDraft }] = await db()('drafts')
      .insert({
        owner_id: owner.userId,
        site_id: await siteId('makers'),
        url: 'https://elsewhere.example/',
        status: 'crawling',
        updated_at: ago(30),
      })
      .returning('id');

    const asAdmin = await parity.viaRest(cast.admin.key, 'staff_list_stuck_flows', {});
    t.is(asAdmin.status, 200, asAdmin.text);
    t.true(refs(asAdmin.body.items).includes(`mail:${mail}`));
    t.false(refs(asAdmin.body.items).includes(`draft:${makersDraft}`), 'another site’s draft is not on this site’s list');
    const item = asAdmin.body.items.find((i: { ref: string }) => i.ref === mail);
    t.like(item, { kind: 'mail', retry_safe: true, workflow_id: null, temporal_url: null });
    t.regex(item.cause, /given up: 550 no such user/);
    t.regex(item.fix, /fix the address or the mail server, then send it again/);

    const asSupport = await parity.viaRest(cast.support.key, 'staff_list_stuck_flows', {});
    t.is(asSupport.status, 200);
    t.false(refs(asSupport.body.items).includes(`mail:${mail}`), 'mail belongs to no site: only staff of every site see it');
    const viaMcp = await parity.viaMcp(cast.support.key, 'staff_list_stuck_flows', {});
    t.false(viaMcp.error, JSON.stringify(viaMcp.body));

    const onMakers = await parity.viaRest(cast.otherSite.key, 'staff_list_stuck_flows', {}, { host: 'makers.localhost' });
    t.is(onMakers.status, 200, onMakers.text);
    const draft = onMakers.body.items.find((i: { kind: string; ref: string }) => i.kind === 'draft' && i.ref === String(makersDraft));
    t.like(draft, { retry_safe: true, workflow_id: `draft:${makersDraft}` });
    t.true(draft.temporal_url.endsWith(`/workflows/draft%3A${makersDraft}`));

    await refused(t, 'moderator', 'staff_list_stuck_flows', {}, 403, 'insufficient_scope');
    await refused(t, 'nonStaff', 'staff_list_stuck_flows', {}, 403, 'insufficient_scope');
    await refused(t, 'otherSite', 'staff_list_stuck_flows', {}, 404, 'not_found');
    t.true((await db()('staff_audit').where({ operation: 'staff_list_stuck_flows', user_id: cast.support.userId })).length >= 2);
    await db()('drafts').where({ id: makersDraft }).update({ status: 'failed' });
  },
);

test.serial('staff_retry_flow: a given-up mail is sent again (MCP); refusals are clear 4xx, never a 500', async (t) => {
  const mail = await stuckMail(120, { attempts: 8, last_error: '550 no such user', failed_at: ago(30), next_attempt_at: ago(-600) });
  await refused(t, 'moderator', 'staff_retry_flow', { kind: 'mail', ref: mail }, 403, 'insufficient_scope');
  await refused(t, 'nonStaff', 'staff_retry_flow', { kind: 'mail', ref: mail }, 403, 'insufficient_scope');
  await refused(t, 'otherSite', 'staff_retry_flow', { kind: 'mail', ref: mail }, 404, 'not_found');
  // Mail belongs to no site: support of one site do not reach it.
  await refused(t, 'support', 'staff_retry_flow', { kind: 'mail', ref: mail }, 404, 'not_found');
  t.truthy(
    (await db()('mail_outbox')
      .where({ id: Number(mail) })
      .first())!.failed_at,
    'refusals change nothing',
  );

  const done = await parity.viaMcp(cast.admin.key, 'staff_retry_flow', { kind: 'mail', ref: mail });
  t.false(done.error, JSON.stringify(done.body));
  t.like(done.body, { kind: 'mail', ref: mail, outcome: 'queued' });
  const row = await db()('mail_outbox')
    .where({ id: Number(mail) })
    .first();
  t.like(row, { failed_at: null, attempts: 0 });
  const audit = await db()('staff_audit').where({ operation: 'staff_retry_flow', target_id: mail }).first();
  t.like(audit, { user_id: cast.admin.userId, role: 'admin', target_kind: 'mail', before: { attempts: 8, given_up: true } });

  const sent = await stuckMail(120, { sent_at: ago(100) });
  await refused(t, 'admin', 'staff_retry_flow', { kind: 'mail', ref: sent }, 409, 'flow_not_retryable');
  const bad = await parity.viaRest(cast.support.key, 'staff_retry_flow', { kind: 'widget', ref: '1' });
  t.is(bad.status, 400, bad.text);
  t.deepEqual(
    bad.body.errors.map((e: { path: string }) => e.path),
    ['kind'],
  );
  const notId = await parity.viaRest(cast.support.key, 'staff_retry_flow', { kind: 'draft', ref: 'abc' });
  t.is(notId.status, 400, notId.text);
  t.like(notId.body, { code: 'validation_failed', errors: [{ path: 'ref' }] });
  await refused(t, 'support', 'staff_retry_flow', { kind: 'order', ref: 'LD-NONE-NONE' }, 404, 'not_found');
  await refused(t, 'support', 'staff_retry_flow', { kind: 'claim', ref: '999999' }, 404, 'not_found');
  const start = await parity.viaRest(cast.support.key, 'staff_retry_flow', { kind: 'start', ref: 'order:LD-X' });
  t.is(start.status, 409);
  t.like(start.body, { code: 'flow_not_retryable' });
  t.regex(start.body.detail, /tried again by itself/);
});

test.serial(
  'staff_replay_order: a stuck order shows as stuck, and replayed after the fix it is fulfilled; flows:stuck and orders:retry go through the operations',
  async (t) => {
    const { number, buyer, fix } = await stuckOrder(env, isoWeekStart(clock.now()));
    t.teardown(fix);
    const shown = await parity.viaRest(cast.support.key, 'staff_get_order', { number });
    t.is(shown.status, 200, shown.text);
    t.like(shown.body, { status: 'attention', stuck: true, workflow_id: `order:${number}` });
    t.true(['completed', 'running'].includes(shown.body.workflow_state), shown.body.workflow_state);
    t.true(shown.body.workflow_url.endsWith(`/workflows/order%3A${number}`));
    t.like(shown.body.mails[0], { to: buyer.email, given_up: false });
    t.regex(shown.body.mails[0].subject, new RegExp(`Receipt for order ${number}`));

    const listed = await adminInProcess(env, 'flows:stuck');
    t.is(listed.code, 0, listed.stderr);
    t.regex(
      listed.stdout,
      new RegExp(`order ${number}\\tattention \\(.*read-only for maintenance.*\\tfix: npm run admin -- orders:retry --number ${number}\\t`),
    );

    await refused(t, 'moderator', 'staff_replay_order', { number }, 403, 'insufficient_scope');
    await refused(t, 'nonStaff', 'staff_replay_order', { number }, 403, 'insufficient_scope');
    await refused(t, 'otherSite', 'staff_replay_order', { number }, 404, 'not_found');
    t.is((await db()('orders').where({ number }).first('status'))!.status, 'attention');

    await fix();
    const replayed = await parity.viaRest(cast.support.key, 'staff_replay_order', { number }, { 'x-request-id': `replay-${number}` });
    t.is(replayed.status, 200, replayed.text);
    t.like(replayed.body, { kind: 'order', ref: number });
    t.true(['updated', 'restarted'].includes(replayed.body.outcome));
    const done = await waitForOrder(env, buyer.key, number, ['fulfilled']);
    t.true(done.lines.every((l: { fulfilled: boolean }) => l.fulfilled));
    t.like(await db()('staff_audit').where({ operation: 'staff_replay_order', target_id: number }).first(), {
      user_id: cast.support.userId,
      target_kind: 'order',
      request_id: `replay-${number}`,
      before: { status: 'attention' },
    });
    await refused(t, 'support', 'staff_replay_order', { number }, 409, 'order_not_stuck');
    const again = await adminInProcess(env, 'orders:retry', '--number', number);
    t.is(again.code, 1, 'orders:retry refuses a fulfilled order as the operation does');
    t.like((await parity.viaRest(cast.support.key, 'staff_get_order', { number })).body, { status: 'fulfilled', stuck: false });
  },
);
