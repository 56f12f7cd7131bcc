import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { grant, revoke } from '../../src/domain/staff/roles.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { WebClient } from '../helpers/web.ts';

/**
 * Shorter web sessions for the site team (STAFF_SESSION_IDLE_MINUTES, STAFF_SESSION_HOURS): the
 * clock moves, a staff member's session ends while another person's lives on.
 */

const clock = new ManualClock(new Date());
let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, {}, { clock });
});
test.after.always(() => env?.close());

const PASSWORD = 'staff session password';
const MINUTE = 60_000;
const db = () => env.services.db;

async function signedIn(email: string, staff: boolean) {
  const user = await createVerifiedUser(db(), email, PASSWORD);
  if (staff) await grant(db(), { userId: user.id, role: 'moderator', siteId: null, by: null, now: clock.now() });
  const client = new WebClient(env.baseUrl);
  if ((await client.signIn(email, PASSWORD)).status !== 303) throw new Error('sign-in failed');
  return { user, client };
}

const isSignedIn = async (client: WebClient) => (await client.get('/account')).status === 200;

test.serial('defaults: 60 minutes idle and 12 hours at most for staff; weeks for everyone else', (t) => {
  t.deepEqual(env.services.config.staffSessions, { idleMs: 60 * MINUTE, absoluteMs: 12 * 60 * MINUTE });
});

test.serial('a staff session unused for an hour ends; another person’s lives on', async (t) => {
  const staff = await signedIn('idle-staff@example.com', true);
  const visitor = await signedIn('idle-visitor@example.com', false);
  clock.advance(59 * MINUTE);
  t.true(await isSignedIn(staff.client), 'used within the hour: still signed in');
  clock.advance(59 * MINUTE);
  t.true(await isSignedIn(staff.client), 'each use moves the idle end forward');
  clock.advance(61 * MINUTE);
  t.false(await isSignedIn(staff.client), 'an hour unused: signed out');
  const back = await staff.client.get('/staff');
  t.is(back.status, 303);
  t.regex(back.location!, /^\/signin\?return_to=/);
  t.true(await isSignedIn(visitor.client), 'a person without a staff role stays signed in');
  clock.advance(20 * 24 * 60 * MINUTE);
  t.true(await isSignedIn(visitor.client), 'for weeks');
});

test.serial('however active, a staff session ends 12 hours after sign-in', async (t) => {
  const staff = await signedIn('absolute-staff@example.com', true);
  const visitor = await signedIn('absolute-visitor@example.com', false);
  for (let h = 0; h < 23; h++) {
    clock.advance(30 * MINUTE);
    t.true(await isSignedIn(staff.client), `active, ${(h + 1) * 30} minutes in`);
    t.true(await isSignedIn(visitor.client));
  }
  clock.advance(31 * MINUTE);
  t.false(await isSignedIn(staff.client), 'past 12 hours: signed out');
  t.true(await isSignedIn(visitor.client));
  // Signing in again starts a new session.
  t.is((await staff.client.signIn('absolute-staff@example.com', PASSWORD)).status, 303);
  t.true(await isSignedIn(staff.client));
});

test.serial('the shorter lifetime follows the role: given mid-session it applies, taken back it no longer does', async (t) => {
  const { user, client } = await signedIn('role-change@example.com', false);
  clock.advance(30 * MINUTE);
  t.true(await isSignedIn(client));
  await grant(db(), { userId: user.id, role: 'support', siteId: null, by: null, now: clock.now() });
  clock.advance(61 * MINUTE);
  t.false(await isSignedIn(client), 'now staff: an hour unused ends it');
  await revoke(db(), { userId: user.id, role: 'support', siteId: null, by: null, now: clock.now() });
  t.is((await client.signIn('role-change@example.com', PASSWORD)).status, 303);
  clock.advance(3 * 60 * MINUTE);
  t.true(await isSignedIn(client), 'no role any more: the long lifetime again');
});

test('the settings shorten or lengthen it', async (t) => {
  const other = await startTestEnv(import.meta.url, { STAFF_SESSION_IDLE_MINUTES: '5', STAFF_SESSION_HOURS: '1' });
  t.teardown(() => other.close());
  t.deepEqual(other.services.config.staffSessions, { idleMs: 5 * MINUTE, absoluteMs: 60 * MINUTE });
});
