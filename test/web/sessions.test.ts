import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { hashSessionId } from '../../src/auth/sessions.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { WebClient } from '../helpers/web.ts';

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const PASSWORD = 'session password 1';

async function signedIn(email: string) {
  await createVerifiedUser(env.services.db, email, PASSWORD);
  const client = new WebClient(env.baseUrl);
  const res = await client.signIn(email, PASSWORD);
  return { client, res, id: client.cookies.get('ld_session')! };
}

test('the session cookie is HttpOnly, SameSite=Lax, 30 days, not Secure on http; stored only hashed', async (t) => {
  const { res, id } = await signedIn('cookie@example.com');
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('ld_session='))!;
  t.regex(cookie, /; HttpOnly/);
  t.regex(cookie, /; SameSite=Lax/);
  t.regex(cookie, /; Max-Age=2592000/);
  t.notRegex(cookie, /Secure/);
  t.regex(id, /^[A-Za-z0-9_-]{43}$/);
  const rows = await env.services.db('web_sessions').select('*');
  t.false(JSON.stringify(rows).includes(id));
  t.true(rows.some((r) => r.id_hash === hashSessionId(id)));
});

test('a planted cookie is ignored and replaced at sign-in (no fixation); signing in again rotates the id', async (t) => {
  await createVerifiedUser(env.services.db, 'rotate@example.com', PASSWORD);
  await createVerifiedUser(env.services.db, 'other@example.com', PASSWORD);
  const client = new WebClient(env.baseUrl);
  client.cookies.set('ld_session', 'planted-by-an-attacker-0123456789');
  t.is((await client.get('/account')).status, 303);
  t.is((await client.signIn('rotate@example.com', PASSWORD)).status, 303);
  const first = client.cookies.get('ld_session')!;
  t.not(first, 'planted-by-an-attacker-0123456789');

  // Signing in again (as someone else) in the same browser ends the first session.
  const _csrf = await client.csrfFrom('/account/keys');
  t.is((await client.post('/signin', { _csrf, email: 'other@example.com', password: PASSWORD })).status, 303);
  const second = client.cookies.get('ld_session')!;
  t.not(second, first);
  const old = new WebClient(env.baseUrl);
  old.cookies.set('ld_session', first);
  t.is((await old.get('/account')).status, 303);
  t.regex((await client.get('/account')).$('main').text(), /other@example\.com/);
});

test('an idle session expires; an active one slides forward and the cookie is re-sent', async (t) => {
  const active = await signedIn('active@example.com');
  const idle = await signedIn('idle@example.com');
  const db = env.services.db;
  await db('web_sessions')
    .where({ id_hash: hashSessionId(active.id) })
    .update({
      last_seen_at: db.raw(`now() - interval '2 hours'`),
      expires_at: db.raw(`now() + interval '1 day'`),
    });
  await db('web_sessions')
    .where({ id_hash: hashSessionId(idle.id) })
    .update({ expires_at: db.raw(`now() - interval '1 second'`) });

  const page = await active.client.get('/account');
  t.is(page.status, 200);
  t.true(page.headers.getSetCookie().some((c) => c.startsWith(`ld_session=${active.id};`) && c.includes('Max-Age=2592000')));
  const row = await db('web_sessions')
    .where({ id_hash: hashSessionId(active.id) })
    .first();
  t.true(row!.expires_at.getTime() > Date.now() + 29 * 24 * 3600 * 1000);

  const gone = await idle.client.get('/account');
  t.is(gone.status, 303);
  t.is(gone.location, '/signin?return_to=%2Faccount');
});

test('a session ends 90 days after sign-in however active it is (absolute lifetime)', async (t) => {
  const db = env.services.db;
  // A cookie stolen long ago and kept alive by use: 91 days old, seen an hour ago, idle expiry far ahead.
  const stolen = await signedIn('stolen@example.com');
  await db('web_sessions')
    .where({ id_hash: hashSessionId(stolen.id) })
    .update({
      created_at: db.raw(`now() - interval '91 days'`),
      last_seen_at: db.raw(`now() - interval '1 hour'`),
      expires_at: db.raw(`now() + interval '29 days'`),
    });
  const refused = await stolen.client.get('/account');
  t.is(refused.status, 303);
  t.is(refused.location, '/signin?return_to=%2Faccount');
  // Using it does not revive it, and signing in again (a new session) cleans the old row up.
  t.is((await stolen.client.get('/account/keys')).status, 303);
  await stolen.client.signIn('stolen@example.com', PASSWORD);
  t.falsy(
    await db('web_sessions')
      .where({ id_hash: hashSessionId(stolen.id) })
      .first(),
  );

  // 80 days in and active: the idle expiry slides, but only up to day 90; the cookie says so too.
  const old = await signedIn('old-active@example.com');
  await db('web_sessions')
    .where({ id_hash: hashSessionId(old.id) })
    .update({
      created_at: db.raw(`now() - interval '80 days'`),
      last_seen_at: db.raw(`now() - interval '2 hours'`),
    });
  const page = await old.client.get('/account');
  t.is(page.status, 200);
  const row = await db('web_sessions')
    .where({ id_hash: hashSessionId(old.id) })
    .first();
  const tenDays = 10 * 24 * 3600 * 1000;
  t.true(Math.abs(row!.expires_at.getTime() - (row!.created_at.getTime() + 9 * tenDays)) < 1000, String(row!.expires_at));
  const cookie = page.headers.getSetCookie().find((c) => c.startsWith(`ld_session=${old.id};`))!;
  const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)?.[1]);
  t.true(Math.abs(maxAge - tenDays / 1000) < 5, String(maxAge));
});

test('sign-out ends the session on the server, not only in the browser', async (t) => {
  const { client, id } = await signedIn('leaver@example.com');
  const _csrf = await client.csrfFrom('/account');
  const out = await client.post('/signout', { _csrf });
  t.is(out.status, 303);
  t.is(out.location, '/signin?notice=signed-out');
  t.true(out.headers.getSetCookie().some((c) => c.startsWith('ld_session=;') && c.includes('Max-Age=0')));
  t.is(
    await env.services
      .db('web_sessions')
      .where({ id_hash: hashSessionId(id) })
      .first(),
    undefined,
  );
  const replay = new WebClient(env.baseUrl);
  replay.cookies.set('ld_session', id);
  t.is((await replay.get('/account')).status, 303);
});
