import test from 'ava';
import type { Scope } from '../../src/auth/scopes.ts';
import { markSessionFactor } from '../../src/domain/staff/second-factor.ts';
import { rolesOf, type StaffRole } from '../../src/domain/staff/roles.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { bothTransports, STAFF_PASSWORD, staffPerson } from '../helpers/staff-cast.ts';
import { WebClient } from '../helpers/web.ts';

/**
 * Staff roles given and taken back through the operations, over REST and MCP, role by role; the
 * every-site and last-admin rules; and a revoked person's keys and console stopping at once.
 */

const clock = new ManualClock(new Date());
let env: TestEnv;
let parity: ReturnType<typeof mcpParity>;
type Person = Awaited<ReturnType<typeof staffPerson>>;
let cast: Record<'admin' | 'siteAdmin' | 'support' | 'moderator' | 'nonStaff' | 'otherSite', Person>;
const person = (roles: StaffRole[], scopes: Scope[], site: string | null = 'main') => staffPerson(env, clock, roles, scopes, site);
test.before(async () => {
  env = await startTestEnv(import.meta.url, {}, { clock });
  parity = mcpParity(env);
  cast = {
    admin: await person(['admin'], ['staff:roles', 'staff:webhooks'], null),
    siteAdmin: await person(['admin'], ['staff:roles']),
    support: await person(['support'], ['staff:webhooks']),
    moderator: await person(['moderator'], ['staff:listings']),
    nonStaff: await person([], ['account:read']),
    otherSite: await person(['admin'], ['staff:roles'], 'makers'),
  };
});
test.after.always(async () => {
  await parity?.close();
  await env?.close();
});

const db = () => env.services.db;
const refusedByRole = async (t: any, name: string, args: Record<string, unknown>) => {
  for (const who of ['support', 'moderator', 'nonStaff'] as const)
    await bothTransports(t, parity, cast[who].key, name, args, 403, 'insufficient_scope');
  await bothTransports(t, parity, cast.otherSite.key, name, args, 404, 'not_found');
};

test.serial('staff_list_roles: admins read this site’s team (site and every-site roles); others are refused', async (t) => {
  for (const who of ['admin', 'siteAdmin'] as const) {
    const { rest } = await bothTransports(t, parity, cast[who].key, 'staff_list_roles', {}, 200);
    const emails = rest.body.items.map((m: { email: string }) => m.email);
    for (const here of ['admin', 'siteAdmin', 'support', 'moderator'] as const) t.true(emails.includes(cast[here].email), here);
    t.false(emails.includes(cast.otherSite.email), 'another site’s admin is not on this site’s team');
    t.like(
      rest.body.items.find((m: { email: string }) => m.email === cast.admin.email),
      { role: 'admin', all_sites: true, granted_by_email: null },
    );
  }
  await refusedByRole(t, 'staff_list_roles', {});
});

test.serial('staff_grant_role and staff_revoke_role: admins give and take back roles here, audited with before and after', async (t) => {
  const target = await person([], ['account:read']);
  const args = { email: target.email.toUpperCase(), role: 'support' };
  await refusedByRole(t, 'staff_grant_role', args);
  await refusedByRole(t, 'staff_revoke_role', args);
  t.deepEqual(await rolesOf(db(), target.userId), []);

  const granted = await parity.viaRest(cast.siteAdmin.key, 'staff_grant_role', args);
  t.is(granted.status, 200, granted.text);
  t.like(granted.body, {
    email: target.email,
    role: 'support',
    all_sites: false,
    changed: true,
    roles: [{ role: 'support', all_sites: false }],
  });
  const again = await parity.viaMcp(cast.admin.key, 'staff_grant_role', args);
  t.like(again, { error: false, body: { changed: false } });
  const everywhere = await parity.viaMcp(cast.admin.key, 'staff_grant_role', { ...args, role: 'moderator', all_sites: true });
  t.like(everywhere.body, { changed: true, all_sites: true });

  const revoked = await parity.viaMcp(cast.siteAdmin.key, 'staff_revoke_role', args);
  t.like(revoked, { error: false, body: { changed: true, roles: [{ role: 'moderator', all_sites: true }] } });
  t.like((await parity.viaRest(cast.admin.key, 'staff_revoke_role', args)).body, { changed: false });
  t.is((await parity.viaRest(cast.admin.key, 'staff_revoke_role', { ...args, role: 'moderator', all_sites: true })).status, 200);

  const rows = await db()('staff_audit')
    .where({ target_kind: 'user', target_id: String(target.userId) })
    .orderBy('id');
  t.deepEqual(
    rows.map((r) => [r.operation, r.user_id]),
    [
      ['staff_grant_role', cast.siteAdmin.userId],
      ['staff_grant_role', cast.admin.userId],
      ['staff_revoke_role', cast.siteAdmin.userId],
      ['staff_revoke_role', cast.admin.userId],
    ],
  );
  t.deepEqual(rows[0]!.before, []);
  t.deepEqual(rows[0]!.after, [{ role: 'support', all_sites: false }]);
  t.deepEqual(rows[0]!.input, { email: target.email, role: 'support', all_sites: false });
  t.deepEqual(rows[2]!.before, [
    { role: 'support', all_sites: false },
    { role: 'moderator', all_sites: true },
  ]);
});

test.serial(
  'bad input: unknown email 404, unknown role 422, every-site role by a site admin 403, the last admin giving up the role 409',
  async (t) => {
    const target = await person([], ['account:read']);
    const cases: [Person, Record<string, unknown>, number, string, RegExp][] = [
      [
        cast.siteAdmin,
        { email: 'nobody-at-all@example.com', role: 'support' },
        404,
        'not_found',
        /No account has the email nobody-at-all@example.com/,
      ],
      [
        cast.siteAdmin,
        { email: target.email, role: 'owner' },
        422,
        'unknown_role',
        /Unknown role "owner". Roles: admin, support, moderator/,
      ],
      [cast.siteAdmin, { email: target.email, role: 'admin', all_sites: true }, 403, 'staff_role_required', /Only an admin of every site/],
      [cast.siteAdmin, { email: target.email, role: '' }, 400, 'validation_failed', /invalid/i],
    ];
    for (const [who, args, status, code, detail] of cases) {
      for (const op of ['staff_grant_role', 'staff_revoke_role']) {
        const res = await parity.viaRest(who.key, op, args);
        t.is(res.status, status, `${op} ${JSON.stringify(args)}: ${res.text}`);
        t.like(res.body, { code });
        t.regex(res.body.detail, detail);
        t.regex(res.headers.get('content-type') ?? '', /application\/problem\+json/);
      }
    }
    t.deepEqual(await rolesOf(db(), target.userId), []);

    // The only admin of every site cannot give that role up; a site admin can, while the every-site admin covers the site.
    const last = await parity.viaRest(cast.admin.key, 'staff_revoke_role', { email: cast.admin.email, role: 'admin', all_sites: true });
    t.is(last.status, 409, last.text);
    t.like(last.body, { code: 'last_admin' });
    t.regex(last.body.detail, /last admin of every site/);
    const mcp = await parity.viaMcp(cast.admin.key, 'staff_revoke_role', { email: cast.admin.email, role: 'admin', all_sites: true });
    t.like(mcp.body, { status: 409, code: 'last_admin' });
    t.true((await rolesOf(db(), cast.admin.userId)).some((g) => g.role === 'admin' && g.siteId === null));
    const makersAdmin = await parity.viaRest(cast.otherSite.key, 'staff_revoke_role', { email: cast.otherSite.email, role: 'admin' });
    t.is(makersAdmin.status, 404, 'staff of another site: this site does not exist for them');
  },
);

test.serial('a revoked person’s keys and console stop at once', async (t) => {
  const helper = await person(['support'], ['staff:webhooks']);
  const web = new WebClient(env.baseUrl);
  t.is((await web.signIn(helper.email, STAFF_PASSWORD)).status, 303);
  for (const id of await db()('web_sessions').where({ user_id: helper.userId }).pluck('id_hash')) {
    await markSessionFactor(db(), id, 'totp', clock.now());
  }
  t.is((await web.get('/staff/webhooks')).status, 200);
  t.is((await parity.viaRest(helper.key, 'staff_list_webhook_health', {})).status, 200);

  const res = await parity.viaRest(cast.siteAdmin.key, 'staff_revoke_role', { email: helper.email, role: 'support' });
  t.like(res.body, { changed: true, roles: [] });
  const key = await parity.viaRest(helper.key, 'staff_list_webhook_health', {});
  t.is(key.status, 403);
  t.is(key.body.code, 'staff_role_required');
  t.like((await parity.viaMcp(helper.key, 'staff_list_webhook_health', {})).body, { status: 403, code: 'staff_role_required' });
  for (const path of ['/staff', '/staff/webhooks']) t.is((await web.get(path)).status, 403, path);
});
