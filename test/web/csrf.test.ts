import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { WebClient, type WebResponse } from '../helpers/web.ts';

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const PASSWORD = 'a good long password';

function isForbiddenPage(t: any, res: WebResponse) {
  t.is(res.status, 403);
  t.regex(res.headers.get('content-type')!, /^text\/html/);
  t.is(res.$('h1').text(), 'This form has expired');
}

/** A verified user signed in with a fresh client; returns the client and the session's token. */
async function signedIn(email: string) {
  const user = await createVerifiedUser(env.services.db, email, PASSWORD);
  const client = new WebClient(env.baseUrl);
  const res = await client.signIn(email, PASSWORD);
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status}`);
  return { user, client, token: await client.csrfFrom('/account/keys') };
}

const keyCount = async (userId: number) => Number((await env.services.db('api_keys').where({ user_id: userId }).count({ n: '*' }))[0]!.n);

test('anonymous forms: missing, wrong, foreign or cookieless tokens → 403 and no account', async (t) => {
  const form = { email: 'csrf-victim@example.com', password: PASSWORD };
  const client = new WebClient(env.baseUrl);
  const own = await client.csrfFrom('/signup');
  const other = new WebClient(env.baseUrl);
  const foreign = await other.csrfFrom('/signup');

  isForbiddenPage(t, await client.post('/signup', form));
  isForbiddenPage(t, await client.post('/signup', { ...form, _csrf: 'x'.repeat(43) }));
  isForbiddenPage(t, await client.post('/signup', { ...form, _csrf: foreign }));
  isForbiddenPage(t, await client.post('/signup', { ...form, _csrf: [own, own] }));
  isForbiddenPage(t, await new WebClient(env.baseUrl).post('/signup', { ...form, _csrf: own }));
  isForbiddenPage(t, await client.post(`/signup?_csrf=${encodeURIComponent(own)}`, form));
  const json = await fetch(`${env.baseUrl}/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    body: JSON.stringify({ ...form, _csrf: own }),
  });
  t.is(json.status, 403);
  t.is(await env.services.db('users').where({ email: form.email }).first(), undefined);
  t.is((await env.services.db('mail_outbox').where({ to_address: form.email })).length, 0);

  // Control: the same form with its own token goes through.
  t.is((await client.post('/signup', { ...form, _csrf: own })).status, 200);
  t.truthy(await env.services.db('users').where({ email: form.email }).first());
});

test('signed-in forms: tokens of the anonymous page, of another session or none → 403, nothing changes', async (t) => {
  const email = 'csrf-owner@example.com';
  await createVerifiedUser(env.services.db, email, PASSWORD);
  const client = new WebClient(env.baseUrl);
  const beforeSignIn = await client.csrfFrom('/signin');
  t.is((await client.post('/signin', { _csrf: beforeSignIn, email, password: PASSWORD })).status, 303);
  const token = await client.csrfFrom('/account/keys');
  t.not(token, beforeSignIn, 'a new token with the new session');
  const stranger = await signedIn('csrf-stranger@example.com');
  const user = await env.services.db('users').where({ email }).first('id');

  const create = { name: 'sneaky', scopes: ['account:read', 'orders:write'] };
  isForbiddenPage(t, await client.post('/account/keys', create));
  isForbiddenPage(t, await client.post('/account/keys', { ...create, _csrf: beforeSignIn }));
  isForbiddenPage(t, await client.post('/account/keys', { ...create, _csrf: stranger.token }));
  t.is(await keyCount(user!.id), 0);

  const made = await client.post('/account/keys', { ...create, name: 'real', _csrf: token });
  t.is(made.status, 303);
  const key = (await client.get(made.location!)).$('#new-key').text();
  const [row] = await env.services.db('api_keys').where({ user_id: user!.id });
  isForbiddenPage(t, await client.post(`/account/keys/${row.id}/revoke`, {}));
  isForbiddenPage(t, await stranger.client.post(`/account/keys/${row.id}/revoke`, { _csrf: token }));
  t.is((await api(env, 'GET', '/me/listings', { key })).status, 200, 'the key still works');

  isForbiddenPage(t, await client.post('/signout', { _csrf: stranger.token }));
  t.is((await client.get('/account')).status, 200, 'still signed in');
  t.is((await client.post('/signout', { _csrf: token })).status, 303);
  t.is((await client.get('/account')).status, 303);
});

test("another person's key: revoking it is a 404 page and the key keeps working", async (t) => {
  const owner = await signedIn('key-owner@example.com');
  const made = await owner.client.post('/account/keys', { _csrf: owner.token, name: 'mine', scopes: 'account:read' });
  const key = (await owner.client.get(made.location!)).$('#new-key').text();
  const [row] = await env.services.db('api_keys').where({ user_id: owner.user.id });
  const other = await signedIn('key-thief@example.com');
  const res = await other.client.post(`/account/keys/${row.id}/revoke`, { _csrf: other.token });
  t.is(res.status, 404);
  t.is(res.$('h1').text(), 'Not found');
  t.regex(res.$('main').text(), /The key was not found/);
  for (const id of ['0', '99999999', 'abc', '1e3', '-1']) {
    t.is((await other.client.post(`/account/keys/${id}/revoke`, { _csrf: other.token })).status, 404, id);
  }
  t.is((await api(env, 'GET', '/me/listings', { key })).status, 200);
});
