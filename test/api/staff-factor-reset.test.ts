import { randomBytes } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { createSession, hashSessionId } from '../../src/auth/sessions.ts';
import { markSessionFactor } from '../../src/domain/staff/second-factor.ts';
import { grant, revoke, type StaffRole } from '../../src/domain/staff/roles.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { adminInProcess } from '../helpers/admin.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { WebClient } from '../helpers/web.ts';

/**
 * staff_reset_second_factor over REST and MCP, role by role (admin, support, moderator, no role,
 * staff of another site → 404), its audit row (counts before and after, no secret), the refusals
 * (one's own factor, a person not on this site's team, bad input), and staff:reset-factor.
 */

const clock = new ManualClock(new Date());
let env: TestEnv;
let parity: ReturnType<typeof mcpParity>;
test.before(async () => {
  env = await startTestEnv(import.meta.url, {}, { clock });
  parity = mcpParity(env);
});
test.after.always(async () => {
  await parity?.close();
  await env?.close();
});

const db = () => env.services.db;
const unique = () => randomBytes(4).toString('hex');
const OP = 'staff_reset_second_factor';
const siteId = async (key: string) => (await db()('sites').where({ key }).first('id'))!.id;

async function person(roles: StaffRole[], site: string | null = 'main', scopes: Scope[] = ['staff:roles']) {
  const email = `factor-${unique()}@example.com`;
  const user = await createVerifiedUser(db(), email, 'factor reset password');
  const on = site === null ? null : await siteId(site);
  // The key is made while an admin (a key gets staff scopes only then); the role check of each call is what is tested.
  const temporary = { userId: user.id, role: 'admin' as const, siteId: null, by: null, now: clock.now() };
  await grant(db(), temporary);
  const { key } = await createApiKey(db(), user.id, 'factor test', scopes);
  await revoke(db(), temporary);
  for (const role of roles) await grant(db(), { userId: user.id, role, siteId: on, by: null, now: clock.now() });
  return { userId: user.id, email, key };
}

/** A staff member with every kind of factor, and a web session verified with one. */
async function enrolled() {
  const p = await person(['support']);
  await db()('staff_totp').insert({ user_id: p.userId, secret_box: Buffer.from('sealed'), confirmed_at: clock.now() });
  await db()('staff_recovery_codes').insert([1, 2, 3].map((i) => ({ user_id: p.userId, code_hash: `hash-${i}` })));
  await db()('staff_passkeys').insert({
    user_id: p.userId,
    credential_id: `cred-${unique()}`,
    public_key: Buffer.from('key'),
    name: 'Laptop',
    created_at: clock.now(),
  });
  const { idHash } = await createSession(db(), p.userId, { now: clock.now(), staff: env.services.config.staffSessions });
  await db()('web_session_factors').insert({ session_id_hash: idHash, factor: 'passkey', verified_at: clock.now() });
  return p;
}

const factorRows = async (userId: number) => ({
  totp: (await db()('staff_totp').where({ user_id: userId })).length,
  codes: (await db()('staff_recovery_codes').where({ user_id: userId })).length,
  passkeys: (await db()('staff_passkeys').where({ user_id: userId })).length,
  sessions: (await db()('web_session_factors as f').join('web_sessions as s', 's.id_hash', 'f.session_id_hash').where('s.user_id', userId))
    .length,
});

async function refused(t: ExecutionContext, key: string, userId: number, status: number, code: string) {
  const rest = await parity.viaRest(key, OP, { user_id: userId });
  t.is(rest.status, status, rest.text);
  t.is(rest.body.code, code);
  t.is(rest.headers.get('content-type')?.split(';')[0], 'application/problem+json');
}

test.serial('an admin resets a staff member’s factors: everything goes, the audit keeps counts only', async (t) => {
  const admin = await person(['admin'], null);
  const target = await enrolled();
  t.deepEqual(await factorRows(target.userId), { totp: 1, codes: 3, passkeys: 1, sessions: 1 });
  const res = await parity.viaRest(admin.key, OP, { user_id: target.userId, reason: 'lost phone' });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body.before, { totp: 1, recovery_codes: 3, passkeys: 1, verified_sessions: 1 });
  t.deepEqual(res.body.after, { totp: 0, recovery_codes: 0, passkeys: 0, verified_sessions: 0 });
  t.deepEqual(await factorRows(target.userId), { totp: 0, codes: 0, passkeys: 0, sessions: 0 });
  const row = (await db()('staff_audit')
    .where({ operation: OP, target_id: String(target.userId) })
    .first())!;
  t.truthy(row);
  t.is(row.user_id, admin.userId);
  t.is(row.role, 'admin');
  t.deepEqual(row.before, { totp: 1, recovery_codes: 3, webauthn_credentials: 1, verified_sessions: 1 });
  t.deepEqual(row.after, { totp: 0, recovery_codes: 0, webauthn_credentials: 0, verified_sessions: 0 });
  t.false(JSON.stringify(row).includes('sealed') || JSON.stringify(row).includes('hash-1'), 'no secret in the audit');
  // Again: nothing left to remove, still fine.
  t.is((await parity.viaRest(admin.key, OP, { user_id: target.userId })).status, 200);
});

test.serial('through MCP, the same operation with the same refusals', async (t) => {
  const admin = await person(['admin']);
  const target = await enrolled();
  const ok = await parity.viaMcp(admin.key, OP, { user_id: target.userId });
  t.false(ok.error, JSON.stringify(ok.body));
  t.is(ok.body.before.passkeys, 1);
  const support = await person(['support']);
  const no = await parity.viaMcp(support.key, OP, { user_id: target.userId });
  t.true(no.error);
  t.like(no.body, { status: 403, code: 'staff_role_required' });
});

test.serial('support, moderators and people without a role are refused (403); staff of another site get 404', async (t) => {
  const target = await enrolled();
  await refused(t, (await person(['support'])).key, target.userId, 403, 'staff_role_required');
  await refused(t, (await person(['moderator'])).key, target.userId, 403, 'staff_role_required');
  await refused(t, (await person([])).key, target.userId, 403, 'staff_role_required');
  await refused(t, (await person(['admin'], 'makers')).key, target.userId, 404, 'not_found');
  const noScope = await person(['admin'], 'main', ['staff:orders']);
  await refused(t, noScope.key, target.userId, 403, 'insufficient_scope');
  t.deepEqual(await factorRows(target.userId), { totp: 1, codes: 3, passkeys: 1, sessions: 1 }, 'nothing was removed');
});

test.serial('refusals: one’s own factor (409), a person not on this team (404), bad input (400)', async (t) => {
  const admin = await person(['admin']);
  await refused(t, admin.key, admin.userId, 409, 'own_second_factor');
  await refused(t, admin.key, (await person([])).userId, 404, 'not_found');
  await refused(t, admin.key, (await person(['support'], 'makers')).userId, 404, 'not_found');
  await refused(t, admin.key, 999_999_999, 404, 'not_found');
  const bad = await parity.viaRest(admin.key, OP, { user_id: 'me' });
  t.is(bad.status, 400, bad.text);
  t.is(bad.body.code, 'validation_failed');
});

test.serial('staff:reset-factor calls the operation (audited as the command line)', async (t) => {
  const target = await enrolled();
  const out = await adminInProcess(env, 'staff:reset-factor', '--email', target.email.toUpperCase());
  t.is(out.code, 0, out.stderr);
  t.regex(out.stdout, /had an authenticator app, 3 recovery code\(s\), 1 passkey\(s\)/);
  t.deepEqual(await factorRows(target.userId), { totp: 0, codes: 0, passkeys: 0, sessions: 0 });
  const row = (await db()('staff_audit')
    .where({ operation: OP, target_id: String(target.userId) })
    .first())!;
  t.is(row.user_id, null);
  t.is((await adminInProcess(env, 'staff:reset-factor', '--email', 'nobody@example.com')).code, 1);
  t.is((await adminInProcess(env, 'staff:reset-factor')).code, 1);
});

test.serial('the console page shows the counts and its button resets (a factor from the last 10 minutes)', async (t) => {
  const admin = await person(['admin']);
  const target = await enrolled();
  const client = new WebClient(env.baseUrl);
  t.is((await client.signIn(admin.email, 'factor reset password')).status, 303);
  await markSessionFactor(db(), hashSessionId(client.cookies.get('ld_session')!), 'totp', clock.now());
  const path = `/staff/people/${target.userId}/factor`;
  const page = await client.get(path);
  t.is(page.status, 200, page.text);
  t.regex(page.$('main').text(), /Passkeys\s*1/);
  const _csrf = page.$('input[name=_csrf]').first().val() as string;
  const done = await client.post(`${path}/reset`, { _csrf, reason: 'lost phone' });
  t.is(done.status, 303);
  t.is(done.location, `${path}?reset=1`);
  t.deepEqual(await factorRows(target.userId), { totp: 0, codes: 0, passkeys: 0, sessions: 0 });
  t.regex((await client.get(done.location!)).text, /is reset/);
  t.is((await client.get(`/staff/people/${admin.userId + 100000}/factor`)).status, 404);

  clock.advance(11 * 60_000);
  const stale = await client.post(`${path}/reset`, { _csrf }, { referer: `${env.baseUrl}${path}` });
  t.is(stale.status, 303, 'an older factor is asked again');
  t.regex(stale.location!, /^\/account\/second-factor\?/);
});
