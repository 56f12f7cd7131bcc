import test from 'ava';
import { admin, adminInProcess } from '../helpers/admin.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

test('users:create then keys:create prints a working key alone on the last line', async (t) => {
  const created = await admin(env, 'users:create', '--email', 'cli@example.com');
  t.is(created.code, 0, created.stderr);
  const keyed = await admin(env, 'keys:create', '--email', 'cli@example.com', '--scopes', 'account:read,listings:write', '--name', 'ci');
  t.is(keyed.code, 0, keyed.stderr);
  const key = keyed.stdout.trim().split('\n').at(-1)!;
  t.regex(key, /^ld_[A-Za-z0-9_-]{20,}$/);
  const mine = await api(env, 'GET', '/me/listings', { key });
  t.is(mine.status, 200);
  // Stored hashed: the key itself is nowhere in the database.
  const rows = await env.services.db('api_keys').select('*');
  t.false(JSON.stringify(rows).includes(key));
  // The scopes are the ones asked for: orders:write was not granted.
  const row = rows.find((r) => r.name === 'ci');
  t.deepEqual([...row!.scopes].sort(), ['account:read', 'listings:write']);
});

test('bad admin input exits non-zero with a message and creates nothing', async (t) => {
  // Through main.ts once (an unknown option fails in parseArgs, before the command runs: main.ts's
  // last catch prints it); the cases in this process, as the same runAdmin answers them.
  const real = await admin(env, 'users:create', '--email', 'a@example.com', '--bogus');
  t.is(real.code, 1);
  t.regex(real.stderr, /Unknown option '--bogus'/);
  t.false(real.stderr.includes('    at '), 'no stack trace through main.ts');
  const cases = [
    ['users:create'],
    ['users:create', '--email', 'not-an-email'],
    ['keys:create', '--email', 'nobody@example.com', '--scopes', 'account:read'],
    ['keys:create', '--email', 'cli@example.com', '--scopes', 'root'],
    ['keys:create', '--email', 'cli@example.com'],
    ['users:create', '--email', 'a@example.com', '--bogus'],
    ['nonsense'],
  ];
  for (const args of cases) {
    const res = await adminInProcess(env, ...args);
    t.not(res.code, 0, args.join(' '));
    t.true(res.stderr.trim().length > 0, args.join(' '));
    t.false(res.stderr.includes('    at '), `no stack trace for ${args.join(' ')}`);
  }
  const again = await adminInProcess(env, 'users:create', '--email', 'twice@example.com');
  t.is(again.code, 0);
  const dup = await adminInProcess(env, 'users:create', '--email', 'TWICE@example.com');
  t.is(dup.code, 1);
  const stored = await env.services
    .db('users')
    .whereIn('email', ['not-an-email', 'a@example.com', 'twice@example.com', 'nobody@example.com'])
    .pluck('email');
  t.deepEqual(stored, ['twice@example.com']);
});
