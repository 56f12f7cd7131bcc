import { randomBytes } from 'node:crypto';
import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { rolesOf } from '../../src/domain/staff/roles.ts';
import { admin, adminInProcess } from '../helpers/admin.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';

// staff:grant and staff:revoke as an operator runs them (one real process for the wiring through
// main.ts, the other cases in this process).

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const account = async () => createVerifiedUser(db(), `cli-staff-${randomBytes(4).toString('hex')}@example.com`, 'cli staff password');
const makersId = async () => (await db()('sites').where({ key: 'makers' }).first('id'))!.id;

test.serial('staff:grant gives a role on every site or one; staff:revoke takes it back; both are audited', async (t) => {
  const user = await account();
  const res = await admin(env, 'staff:grant', '--email', user.email.toUpperCase(), '--role', 'admin');
  t.is(res.code, 0, res.stderr);
  t.regex(res.stdout, new RegExp(`granted: ${user.email} is admin on every site`));
  t.is((await adminInProcess(env, 'staff:grant', '--email', user.email, '--role', 'support', '--site', 'makers')).code, 0);
  const again = await adminInProcess(env, 'staff:grant', '--email', user.email, '--role', 'admin');
  t.regex(again.stdout, /already held/);
  t.deepEqual(
    (await rolesOf(db(), user.id)).map((g) => [g.role, g.siteId, g.grantedBy]),
    [
      ['admin', null, null],
      ['support', await makersId(), null],
    ],
  );

  // Revoking the every-site admin leaves the per-site role.
  const revoked = await adminInProcess(env, 'staff:revoke', '--email', user.email, '--role', 'admin');
  t.is(revoked.code, 0, revoked.stderr);
  t.regex(revoked.stdout, /revoked: .* is no longer admin on every site/);
  t.regex((await adminInProcess(env, 'staff:revoke', '--email', user.email, '--role', 'admin')).stdout, /not held/);
  t.deepEqual(
    (await rolesOf(db(), user.id)).map((g) => g.role),
    ['support'],
  );
  t.truthy(await db()('staff_roles').where({ user_id: user.id, role: 'admin' }).whereNotNull('revoked_at').first(), 'the history stays');

  const audit = await db()('staff_audit')
    .where({ target_kind: 'user', target_id: String(user.id) })
    .orderBy('id');
  t.deepEqual(
    audit.map((r) => [r.operation, r.user_id, r.input]),
    [
      ['staff_grant_role', null, { email: user.email, role: 'admin', all_sites: true }],
      ['staff_grant_role', null, { email: user.email, role: 'support', all_sites: false }],
      ['staff_revoke_role', null, { email: user.email, role: 'admin', all_sites: true }],
    ],
    'the commands are the console’s operations, audited as the command line',
  );
});

test.serial('keys:create gives staff scopes only to a person whose role allows them', async (t) => {
  const user = await account();
  const refused = await adminInProcess(env, 'keys:create', '--email', user.email, '--scopes', 'staff:orders');
  t.is(refused.code, 1);
  t.regex(refused.stderr, /staff:orders need a staff role/);
  await adminInProcess(env, 'staff:grant', '--email', user.email, '--role', 'support');
  const made = await adminInProcess(env, 'keys:create', '--email', user.email, '--scopes', 'staff:orders,account:read');
  t.is(made.code, 0, made.stderr);
  t.regex(made.stdout, /with scopes staff:orders,account:read\nld_/);
});

test.serial('bad staff commands exit 1 with the reason and change nothing', async (t) => {
  const user = await account();
  const cases: [string[], RegExp][] = [
    [['staff:grant', '--email', 'nobody-here@example.com', '--role', 'admin'], /No account has the email nobody-here@example.com/],
    [['staff:grant', '--email', user.email, '--role', 'owner'], /Unknown role "owner". Roles: admin, support, moderator/],
    [['staff:grant', '--email', user.email, '--role', 'admin', '--site', 'nowhere'], /Unknown site "nowhere"/],
    [['staff:grant', '--role', 'admin'], /--email is required/],
    [['staff:revoke', '--email', user.email], /--role is required/],
  ];
  for (const [args, message] of cases) {
    const res = await adminInProcess(env, ...args);
    t.is(res.code, 1, args.join(' '));
    t.regex(res.stderr, message);
  }
  const real = await admin(env, 'staff:grant', '--email', 'nobody-here@example.com', '--role', 'admin');
  t.is(real.code, 1);
  t.regex(real.stderr, /No account has the email/);
  t.deepEqual(await rolesOf(db(), user.id), []);
  t.regex((await adminInProcess(env, 'help')).stderr, /staff:grant --email E --role admin\|support\|moderator \[--site K\]/);
});
