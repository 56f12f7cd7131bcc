import test from 'ava';
import type { Scope } from '../../src/auth/scopes.ts';
import type { StaffRole } from '../../src/domain/staff/roles.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { failingEndpoint, URL_TOKEN } from '../helpers/failing-webhooks.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { bothTransports, staffPerson } from '../helpers/staff-cast.ts';

/**
 * Webhook health for the site team over REST and MCP, role by role; what staff see of an address
 * (its host, never its path, secret or payloads); and the audit row of each read.
 */

const clock = new ManualClock(new Date('2026-03-12T12:00:00Z'));
let env: TestEnv;
let parity: ReturnType<typeof mcpParity>;
let cast: Record<'admin' | 'support' | 'moderator' | 'nonStaff' | 'otherSite', { userId: number; key: string; email: string }>;
test.before(async () => {
  env = await startTestEnv(import.meta.url, {}, { clock });
  parity = mcpParity(env);
  const person = (roles: StaffRole[], scopes: Scope[], site: string | null = 'main') => staffPerson(env, clock, roles, scopes, site);
  cast = {
    admin: await person(['admin'], ['staff:webhooks', 'staff:audit'], null),
    support: await person(['support'], ['staff:webhooks']),
    moderator: await person(['moderator'], ['staff:listings']),
    nonStaff: await person([], ['account:read']),
    otherSite: await person(['admin'], ['staff:webhooks'], 'makers'),
  };
});
test.after.always(async () => {
  await parity?.close();
  await env?.close();
});

const db = () => env.services.db;
const hoursAgo = (h: number) => new Date(clock.now().getTime() - h * 3_600_000);

test.serial(
  'staff_list_webhook_health: admin and support see this site’s failing and turned-off endpoints; others are refused',
  async (t) => {
    const failing = await failingEndpoint(env, parity, { failures: 12, since: hoursAgo(48) });
    const off = await failingEndpoint(env, parity, { failures: 3, since: hoursAgo(100), disabled: true });
    const healthy = await failingEndpoint(env, parity, { failures: 0, since: hoursAgo(5) });
    await db()('webhook_endpoints').where({ id: healthy.id }).update({ failing_since: null });

    for (const who of ['admin', 'support'] as const) {
      const { rest, mcp } = await bothTransports(t, parity, cast[who].key, 'staff_list_webhook_health', {}, 200);
      const ids = rest.body.items.map((e: { id: number }) => e.id);
      t.deepEqual(ids, [off.id, failing.id], 'failing longest first; a working endpoint is not listed');
      t.deepEqual(mcp.body.items, rest.body.items);
      const [offView, failingView] = rest.body.items;
      t.like(failingView, {
        owner_email: failing.owner.email,
        host: '127.0.0.1:9',
        masked_url: `http://127.0.0.1:9/… (${`/hooks/${URL_TOKEN}?key=${URL_TOKEN}`.length} characters)`,
        enabled: true,
        failures_in_a_row: 12,
        failing_since: hoursAgo(48).toISOString(),
        disabled_at: null,
      });
      t.is(failingView.last_errors.length, 3);
      t.like(failingView.last_errors[0], { status_code: 502, at: hoursAgo(48 - 11).toISOString() });
      t.like(offView, { enabled: false, disabled_reason: 'failing', failures_in_a_row: 3 });
      t.truthy(offView.disabled_at);
      for (const secret of [
        URL_TOKEN,
        failing.secret,
        off.secret,
        failing.secretBox.toString('hex'),
        failing.secretBox.toString('base64'),
        'PAYLOAD-MARKER',
        'secret',
      ]) {
        t.false(rest.text.includes(secret), `the answer carries no ${secret}`);
        t.false(JSON.stringify(mcp.body).includes(secret), `the tool result carries no ${secret}`);
      }
    }
    await bothTransports(t, parity, cast.moderator.key, 'staff_list_webhook_health', {}, 403, 'insufficient_scope');
    await bothTransports(t, parity, cast.nonStaff.key, 'staff_list_webhook_health', {}, 403, 'insufficient_scope');
    await bothTransports(t, parity, cast.otherSite.key, 'staff_list_webhook_health', {}, 404, 'not_found');
    const bad = await parity.viaRest(cast.support.key, 'staff_list_webhook_health', { limit: 'many' });
    t.is(bad.status, 400);
    t.is(bad.body.code, 'validation_failed');

    const rows = await db()('staff_audit').where({ operation: 'staff_list_webhook_health' });
    t.is(rows.length, 4, 'admin and support, each over REST and MCP');
    t.like(
      rows.find((r) => r.user_id === cast.support.userId),
      { role: 'support', after: { found: 2 } },
    );
  },
);

test.serial('staff_get_webhook_endpoint: one endpoint’s deliveries and errors, without secret or payload; audited', async (t) => {
  const failing = await failingEndpoint(env, parity, { failures: 4, since: hoursAgo(30) });
  const args = { endpoint_id: failing.id };
  for (const who of ['admin', 'support'] as const) {
    const { rest } = await bothTransports(t, parity, cast[who].key, 'staff_get_webhook_endpoint', args, 200);
    t.like(rest.body, { id: failing.id, owner_email: failing.owner.email, host: '127.0.0.1:9', failures_in_a_row: 4 });
    t.is(rest.body.last_errors.length, 4);
    t.deepEqual(
      rest.body.deliveries.map((d: { status: string; attempts: number; last_status_code: number }) => [
        d.status,
        d.attempts,
        d.last_status_code,
      ]),
      [
        ['pending', 4, 502],
        ['succeeded', 1, 200],
      ],
    );
    for (const secret of [
      URL_TOKEN,
      failing.secret,
      failing.secretBox.toString('hex'),
      failing.secretBox.toString('base64'),
      'PAYLOAD-MARKER',
    ]) {
      t.false(rest.text.includes(secret), `the answer carries no ${secret}`);
    }
  }
  await bothTransports(t, parity, cast.moderator.key, 'staff_get_webhook_endpoint', args, 403, 'insufficient_scope');
  await bothTransports(t, parity, cast.nonStaff.key, 'staff_get_webhook_endpoint', args, 403, 'insufficient_scope');
  await bothTransports(t, parity, cast.otherSite.key, 'staff_get_webhook_endpoint', args, 404, 'not_found');
  t.is((await parity.viaRest(cast.support.key, 'staff_get_webhook_endpoint', { endpoint_id: 999_999 })).status, 404);
  t.is((await parity.viaRest(cast.support.key, 'staff_get_webhook_endpoint', { endpoint_id: 'x' })).status, 400);

  // An endpoint whose owner has nothing on this site is not this site's.
  const elsewhere = await env.user(['account:read', 'webhooks:write']);
  const made = await parity.viaRest(elsewhere.key, 'create_webhook_endpoint', { url: 'http://127.0.0.1:9/x', events: ['order.paid'] });
  t.is((await parity.viaRest(cast.support.key, 'staff_get_webhook_endpoint', { endpoint_id: made.body.id })).status, 404);

  const rows = await db()('staff_audit').where({ operation: 'staff_get_webhook_endpoint', target_id: String(failing.id) });
  t.is(rows.length, 4);
  t.like(rows[0], { target_kind: 'webhook_endpoint' });
});
