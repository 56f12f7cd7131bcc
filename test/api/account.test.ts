import { randomBytes } from 'node:crypto';
import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { createSession, STAFF_SESSION_DEFAULTS } from '../../src/auth/sessions.ts';
import { createUser } from '../../src/auth/users.ts';
import { SESSION_COOKIE } from '../../src/web/session.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { mailsTo, WebClient } from '../helpers/web.ts';

// Accounts people control through the API: sessions and devices, email and password changes,
// deletion and what it leaves behind. Exports: test/workflows/account-export.test.ts.

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1';
const PASSWORD = 'account control password';

let env: TestEnv;
let parity: ReturnType<typeof mcpParity>;
const clock = new ManualClock(new Date());
test.before(async () => {
  env = await startTestEnv(import.meta.url, {}, { clock });
  parity = mcpParity(env);
});
test.after.always(async () => {
  await parity?.close();
  await env?.close();
});

const db = () => env.services.db;

/** A person with a password, a key with both account scopes, and `browsers` signed-in web sessions. */
async function person(browsers: string[] = []) {
  const email = `acct-${randomBytes(4).toString('hex')}@example.com`;
  const user = await createVerifiedUser(db(), email, PASSWORD);
  const { key } = await createApiKey(db(), user.id, 'account', ['account:read', 'account:write']);
  const clients: WebClient[] = [];
  for (const ua of browsers) {
    const client = new WebClient(env.baseUrl);
    const _csrf = await client.csrfFrom('/signin');
    const res = await client.post('/signin', { _csrf, email, password: PASSWORD }, { 'user-agent': ua });
    if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
    clients.push(client);
  }
  return { userId: user.id, email, key, clients };
}

test('sessions list their device and times; one can be signed out, another person’s id is 404, then all others', async (t) => {
  const me = await person([FIREFOX, IPHONE, FIREFOX]);
  const other = await person([FIREFOX]);
  const list = await api(env, 'GET', '/me/sessions', { key: me.key });
  t.is(list.status, 200);
  t.is(list.body.items.length, 3);
  t.deepEqual(list.body.items.map((s: { device: string }) => s.device).sort(), [
    'Firefox on Windows',
    'Firefox on Windows',
    'Safari on iPhone',
  ]);
  t.true(
    list.body.items.every((s: { current: boolean }) => !s.current),
    'an API key is no session',
  );
  const theirs = (await api(env, 'GET', '/me/sessions', { key: other.key })).body.items[0].id;
  const stranger = await api(env, 'DELETE', `/me/sessions/${theirs}`, { key: me.key });
  t.is(stranger.status, 404);
  t.is(stranger.body.code, 'not_found');
  t.is((await other.clients[0]!.get('/account')).status, 200, 'their session lives on');
  t.is((await api(env, 'DELETE', '/me/sessions/not-a-session', { key: me.key })).status, 404);

  const phone = list.body.items.find((s: { device: string }) => s.device === 'Safari on iPhone').id;
  t.is((await api(env, 'DELETE', `/me/sessions/${phone}`, { key: me.key })).status, 200);
  t.is((await me.clients[1]!.get('/account')).status, 303, 'the phone is signed out');
  t.is((await me.clients[0]!.get('/account')).status, 200);

  // From the first browser: every other session ends, this one stays and is marked.
  const page = await me.clients[0]!.get('/account');
  t.regex(page.$('#sessions').parent().text(), /\(this session\)/);
  const _csrf = page.$('form[action="/account/sessions/end-others"] input[name=_csrf]').val() as string;
  t.is((await me.clients[0]!.post('/account/sessions/end-others', { _csrf })).status, 303);
  t.is((await me.clients[2]!.get('/account')).status, 303);
  const left = (await api(env, 'GET', '/me/sessions', { key: me.key })).body.items;
  t.is(left.length, 1);
  // Over REST with a key (no session of its own), the collection's DELETE signs out every session.
  const all = await api(env, 'DELETE', '/me/sessions', { key: me.key });
  t.like(all, { status: 200, body: { ended: 1 } });
  t.is((await me.clients[0]!.get('/account')).status, 303);
  t.is((await other.clients[0]!.get('/account')).status, 200, 'another person’s sessions live on');
});

test('a key with account:read only cannot change the account (403 insufficient_scope)', async (t) => {
  const me = await person();
  const { key } = await createApiKey(db(), me.userId, 'reader', ['account:read']);
  const res = await api(env, 'POST', '/me/email-change', { key, body: { email: 'taken-over@example.com' } });
  t.is(res.status, 403);
  t.is(res.body.code, 'insufficient_scope');
  t.is((await mailsTo(db(), 'taken-over@example.com')).length, 0);
});

test('an email change waits for the link at the new address, warns the old one, and the link works once', async (t) => {
  const me = await person();
  const next = `new-${randomBytes(3).toString('hex')}@example.com`;
  const res = await api(env, 'POST', '/me/email-change', { key: me.key, body: { email: next } });
  t.is(res.status, 202);
  t.is(res.body.pending_email, next);
  t.is((await db()('users').where({ id: me.userId }).first())!.email, me.email, 'nothing changes yet');
  const notice = await mailsTo(db(), me.email);
  t.is(notice.length, 1);
  t.regex(notice[0]!.body_text, new RegExp(`change its email address to ${next.replace(/\./g, '\\.')}`));
  const [confirm] = await mailsTo(db(), next);
  const token = /token=([A-Za-z0-9_-]+)/.exec(confirm!.body_text)![1]!;
  t.false(JSON.stringify(await db()('account_email_changes').where({ user_id: me.userId })).includes(token), 'stored hashed');

  const bad = await api(env, 'POST', '/me/email-change', { key: me.key, body: { email: 'not an email' } });
  t.is(bad.status, 400);
  const taken = await api(env, 'POST', '/me/email-change', { key: me.key, body: { email: (await person()).email } });
  t.is(taken.status, 409);

  const ok = await api(env, 'POST', '/email-changes/confirm', { body: { token } });
  t.is(ok.status, 200);
  t.is((await db()('users').where({ id: me.userId }).first())!.email, next);
  const again = await api(env, 'POST', '/email-changes/confirm', { body: { token } });
  t.is(again.status, 410);
  t.is(again.body.code, 'email_link_invalid');
  t.regex(again.body.detail, /expired or was used/);
  // The mailed link's page: a button (mail scanners open links), then the same refusal in words.
  const visitor = new WebClient(env.baseUrl);
  const page = await visitor.get(`/account/email/confirm?token=${token}`);
  t.is(page.status, 200);
  const used = await visitor.post('/account/email/confirm', { _csrf: page.$('input[name=_csrf]').val() as string, token });
  t.is(used.status, 410);
  t.regex(used.$('main').text(), /expired or was used already/);
});

// Serial (ava runs serial tests first): it moves the clock every test of this file reads.
test.serial('an email change link expires after 24 hours', async (t) => {
  const me = await person();
  const next = `late-${randomBytes(3).toString('hex')}@example.com`;
  t.is((await api(env, 'POST', '/me/email-change', { key: me.key, body: { email: next } })).status, 202);
  const token = /token=([A-Za-z0-9_-]+)/.exec((await mailsTo(db(), next))[0]!.body_text)![1]!;
  clock.advance(24 * 3600_000 + 1000);
  const res = await api(env, 'POST', '/email-changes/confirm', { body: { token } });
  t.is(res.status, 410);
  t.is((await db()('users').where({ id: me.userId }).first())!.email, me.email);
});

test('a password change needs the current password and signs other sessions out', async (t) => {
  const me = await person([FIREFOX, IPHONE]);
  const wrong = await api(env, 'POST', '/me/password', {
    key: me.key,
    body: { current_password: 'not my password', new_password: 'a brand new password' },
  });
  t.is(wrong.status, 403);
  t.is(wrong.body.code, 'wrong_password');
  t.regex(wrong.body.detail, /current password is not right/);
  const none = await api(env, 'POST', '/me/password', { key: me.key, body: { new_password: 'a brand new password' } });
  t.is(none.status, 403);
  t.is(none.body.code, 'reauthentication_required');
  const short = await api(env, 'POST', '/me/password', { key: me.key, body: { current_password: PASSWORD, new_password: 'short' } });
  t.is(short.status, 400);
  const ok = await api(env, 'POST', '/me/password', {
    key: me.key,
    body: { current_password: PASSWORD, new_password: 'a brand new password' },
  });
  t.is(ok.status, 200);
  t.is(ok.body.sessions_ended, 2);
  for (const c of me.clients) t.is((await c.get('/account')).status, 303);
  t.is((await new WebClient(env.baseUrl).signIn(me.email, 'a brand new password')).status, 303);
});

/** The person's footprint: a listing, a paid order with its invoice, a vote, a comment. */
async function footprint(userId: number) {
  const listingId = await insertLiveListing(db(), { name: `Gone ${randomBytes(3).toString('hex')}`, ownerId: userId });
  const other = await insertLiveListing(db(), { name: `Stays ${randomBytes(3).toString('hex')}` });
  const site = (await db()('sites').where({ key: 'main' }).first('id'))!;
  const number = `LD-A-${randomBytes(3).toString('hex').toUpperCase()}`;
  await db()('orders').insert({
    site_id: site.id,
    user_id: userId,
    number,
    checkout_token: randomBytes(8).toString('hex'),
    status: 'fulfilled',
    quote: '{}',
    billing: JSON.stringify({ name: 'Ada Buyer', country: 'IE', vat_number: 'IE1234567T' }),
    total_cents: 900,
    expires_at: new Date(),
    paid_at: new Date(),
  });
  await db()('votes').insert({ listing_id: other, user_id: userId });
  await db()('listings').where({ id: other }).update({ votes: 1 });
  const [comment] = await db()('comments')
    .insert({
      listing_id: other,
      user_id: userId,
      body: 'Lovely work, will use it.',
      body_hash: randomBytes(8).toString('hex'),
      created_at: new Date(),
    })
    .returning('id');
  return { listingId, other, number, commentId: comment!.id as number };
}

test('delete_account without re-authentication is refused in words; with a wrong password too', async (t) => {
  const me = await person();
  const bare = await api(env, 'POST', '/me/deletion', { key: me.key, body: { confirm: 'delete my account' } });
  t.is(bare.status, 403);
  t.is(bare.body.code, 'reauthentication_required');
  t.regex(bare.body.detail, /current password/);
  const wrong = await api(env, 'POST', '/me/deletion', { key: me.key, body: { confirm: 'delete my account', password: 'guess' } });
  t.is(wrong.status, 403);
  t.is(wrong.body.code, 'wrong_password');
  const unconfirmed = await api(env, 'POST', '/me/deletion', { key: me.key, body: { confirm: 'yes', password: PASSWORD } });
  t.is(unconfirmed.status, 400);
  t.is((await db()('users').where({ id: me.userId }).first())!.deleted_at, null);
});

test('deleting unlists listings, keeps orders, votes and comments without the person, removes the rest, audits it', async (t) => {
  const me = await person([FIREFOX]);
  const f = await footprint(me.userId);
  await db()('sign_in_identities').insert({ provider: 'github', subject: `gh-${me.userId}`, user_id: me.userId, email: me.email });
  const res = await api(env, 'POST', '/me/deletion', { key: me.key, body: { confirm: 'delete my account', password: PASSWORD } });
  t.is(res.status, 200);
  t.like(res.body, { deleted: true, listings_unlisted: 1, orders_kept: 1, votes_kept: 1, comments_kept: 1 });

  const listing = (await db()('listings').where({ id: f.listingId }).first())!;
  t.like(listing, {
    status: 'unlisted',
    owner_id: null,
    status_before_unlisted: 'live',
    unlisted_reason: 'Its owner deleted their account.',
  });
  const user = (await db()('users').where({ id: me.userId }).first())!;
  t.is(user.email, `deleted-${me.userId}@deleted.invalid`);
  t.is(user.password_hash, null);
  t.not(user.deleted_at, null);
  const order = (await db()('orders').where({ number: f.number }).first())!;
  t.is(order.user_id, me.userId, 'the order stays, tied to the emptied account row');
  t.deepEqual(order.billing, { name: 'Ada Buyer', country: 'IE', vat_number: 'IE1234567T' }, 'billing details stay on the invoice');
  t.is(Number((await db()('votes').where({ listing_id: f.other }).count({ n: '*' }))[0]!.n), 1);
  t.is((await db()('listings').where({ id: f.other }).first())!.votes, 1, 'the vote still counts');
  const comments = await api(env, 'GET', `/listings/${f.other}/comments`);
  const shown = comments.body.items.find((c: { id: number }) => c.id === f.commentId);
  t.is(shown.author.name, 'deleted account');
  t.is(shown.body, 'Lovely work, will use it.');
  for (const table of ['web_sessions', 'api_keys', 'sign_in_identities'] as const) {
    t.is((await db()(table).where({ user_id: me.userId })).length, 0, table);
  }
  t.is((await me.clients[0]!.get('/account')).status, 303, 'signed out');
  t.is((await api(env, 'GET', '/me/sessions', { key: me.key })).status, 401, 'the key is gone');
  const audit = await db()('staff_audit').where({ operation: 'delete_account', target_id: String(me.userId) });
  t.is(audit.length, 1);
  t.is(audit[0]!.user_id, null, 'no staff actor: the person did it');
  t.like(audit[0]!.after, { listings_unlisted: 1, orders_kept: 1 });
  t.not((await new WebClient(env.baseUrl).signIn(me.email, PASSWORD)).status, 303, 'nobody signs in with the old address');
});

test('MCP: delete_account without re-authentication is the same 403 problem, list_sessions the same list', async (t) => {
  const me = await person([IPHONE]);
  const refused = await parity.viaMcp(me.key, 'delete_account', { confirm: 'delete my account' });
  t.true(refused.error);
  t.is(refused.body.code, 'reauthentication_required');
  t.is(refused.body.status, 403);
  const listed = await parity.viaMcp(me.key, 'list_sessions', {});
  t.false(listed.error);
  t.is(listed.body.items[0].device, 'Safari on iPhone');
});

/** A browser holding a new session of `userId`, signed in at the clock's now (as a GitHub sign-in leaves it). */
async function browserOf(userId: number): Promise<WebClient> {
  const client = new WebClient(env.baseUrl);
  client.cookies.set(SESSION_COOKIE, (await createSession(db(), userId, { now: clock.now(), staff: STAFF_SESSION_DEFAULTS })).id);
  return client;
}

test.serial(
  'an account without a password re-authenticates by a fresh sign-in: an old session cannot delete it, a new one can',
  async (t) => {
    const user = await createUser(db(), `passwordless-${randomBytes(3).toString('hex')}@example.com`);
    const old = await browserOf(user.id);
    clock.advance(11 * 60_000);
    const form = await old.get('/account/delete');
    t.regex(form.$('main').text(), /no password: sign out and sign in again/);
    const _csrf = form.$('input[name=_csrf]').val() as string;
    const refused = await old.post('/account/delete', { _csrf, confirm: 'delete my account' });
    t.is(refused.status, 303);
    const shown = await old.get(refused.location!);
    t.is(shown.status, 403);
    t.regex(shown.$('main').text(), /Sign in again \(within 10 minutes\)/);
    t.is((await db()('users').where({ id: user.id }).first())!.deleted_at, null);

    const fresh = await browserOf(user.id);
    const token = (await fresh.get('/account/delete')).$('input[name=_csrf]').val() as string;
    const done = await fresh.post('/account/delete', { _csrf: token, confirm: 'delete my account' });
    t.is(done.status, 200);
    t.regex(done.$('h1').text(), /Your account is deleted/);
    t.not((await db()('users').where({ id: user.id }).first())!.deleted_at, null);
    t.is((await old.get('/account')).status, 303, 'every session is gone');
  },
);
