import { randomBytes } from 'node:crypto';
import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { freePort, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { RedirectingClient, startOidcProvider, type TestOidcProvider, type TestPerson } from '../helpers/identity-providers.ts';
import { mailsTo } from '../helpers/web.ts';

// "Continue with Google" against a real OpenID Connect provider on loopback (signed ID tokens,
// PKCE, state, nonce), driven by an HTTP client that follows redirects and keeps cookies. Serial:
// the provider signs in one person at a time and the expiry test moves the app's clock.

let env: TestEnv;
let google: TestOidcProvider;
const clock = new ManualClock(new Date());

test.before(async () => {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  // The app first (its port names the callback), then the provider it discovers at the first sign-in.
  env = await startTestEnv(
    import.meta.url,
    { GOOGLE_CLIENT_ID: 'test-google-client', GOOGLE_CLIENT_SECRET: 'pending', GOOGLE_ISSUER: issuer },
    { clock },
  );
  google = await startOidcProvider(port, `${env.baseUrl}/signin/google/callback`);
  // The provider made its secret; the app reads it from its config (as from the environment).
  env.services.config.socialSignIn.google!.clientSecret = google.clientSecret;
});
test.after.always(async () => {
  await google?.close();
  await env?.close();
});

const person = (over: Partial<TestPerson> = {}): TestPerson => ({
  sub: `g-${randomBytes(6).toString('hex')}`,
  email: `p-${randomBytes(4).toString('hex')}@example.com`,
  email_verified: true,
  ...over,
});

const CALLBACK = /\/signin\/google\/callback\?/;

/** Runs the provider's part and holds the callback back: returns the callback URL the browser was sent to. */
async function toCallback(client: RedirectingClient, who: TestPerson, start = '/signin/google'): Promise<URL> {
  google.signInAs(who);
  client.jars.delete(google.issuer); // a fresh session at the provider: its login step signs in `who`
  const res = start.startsWith('POST ')
    ? await client.post(`${env.baseUrl}${start.slice(5)}`, { _csrf: await csrf(client, '/account/sign-ins') }, CALLBACK)
    : await client.get(`${env.baseUrl}${start}`, { stopAt: CALLBACK });
  if (!res.stoppedAt) throw new Error(`no callback: ${res.status} ${res.url.href} ${res.text.slice(0, 300)}`);
  return res.stoppedAt;
}

async function csrf(client: RedirectingClient, path: string): Promise<string> {
  const page = await client.get(`${env.baseUrl}${path}`);
  const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
  if (!token) throw new Error(`no CSRF token on ${path} (${page.status})`);
  return token;
}

async function signedInEmail(client: RedirectingClient): Promise<string | null> {
  const page = await client.get(`${env.baseUrl}/account`);
  return /<dt>Email address<\/dt><dd>([^<]+)<\/dd>/.exec(page.text)?.[1] ?? null;
}

const db = () => env.services.db;
const counts = async () => ({
  users: Number((await db()('users').count({ n: '*' }))[0]!.n),
  identities: Number((await db()('sign_in_identities').count({ n: '*' }))[0]!.n),
});

async function passwordUser(client: RedirectingClient | null, email = `pw-${randomBytes(4).toString('hex')}@example.com`) {
  const user = await createVerifiedUser(db(), email, 'a long password 123');
  if (client) {
    const res = await client.post(`${env.baseUrl}/signin`, {
      _csrf: await csrf(client, '/signin'),
      email,
      password: 'a long password 123',
    });
    if (!res.url.pathname.startsWith('/account')) throw new Error(`password sign-in failed: ${res.status}`);
  }
  return user;
}

test.serial(
  'a new Google identity with a verified address makes a verified account and signs in; the next time signs in to it',
  async (t) => {
    const who = person();
    const client = new RedirectingClient();
    const done = await client.get((await toCallback(client, who)).href);
    t.is(done.status, 200);
    t.is(done.url.pathname, '/account');
    t.is(await signedInEmail(client), who.email);
    const user = await db()('users').where({ email: who.email }).first();
    t.truthy(user?.email_verified_at);
    t.is(user?.password_hash, null);
    const identity = await db()('sign_in_identities').where({ provider: 'google', subject: who.sub }).first();
    t.is(identity?.user_id, user!.id);
    t.is(identity?.email, who.email);

    const again = new RedirectingClient();
    await again.get((await toCallback(again, who)).href);
    t.is(await signedInEmail(again), who.email);
    t.is(Number((await db()('users').where({ email: who.email }).count({ n: '*' }))[0]!.n), 1);
  },
);

test.serial('an address that has an account links only after its owner opens the mailed link; then it signs in', async (t) => {
  const owner = await passwordUser(null);
  const who = person({ email: owner.email });
  const client = new RedirectingClient();
  const answer = await client.get((await toCallback(client, who)).href);
  t.is(answer.status, 200);
  t.regex(answer.text, /Check your email/);
  t.is(await signedInEmail(client), null, 'not signed in');
  t.falsy(await db()('sign_in_identities').where({ subject: who.sub }).first(), 'not linked yet');

  const mail = (await mailsTo(db(), owner.email)).find((m) => m.subject === 'Sign in with Google?');
  const link = /http\S+\/sign-ins\/confirm\?token=[\w-]+/.exec(mail!.body_text)![0];
  // Opening the link (a mail scanner would too) only asks.
  const confirmPage = await client.get(link);
  t.regex(confirmPage.text, /Confirm and sign in/);
  t.falsy(await db()('sign_in_identities').where({ subject: who.sub }).first(), 'opening the link links nothing');
  const token = new URL(link).searchParams.get('token')!;
  const confirmed = await client.post(`${env.baseUrl}/sign-ins/confirm`, {
    _csrf: /name="_csrf" value="([^"]+)"/.exec(confirmPage.text)![1]!,
    token,
  });
  t.is(confirmed.url.pathname, '/account/sign-ins');
  t.regex(confirmed.text, /The provider is linked/);
  t.is(await signedInEmail(client), owner.email);
  t.is((await db()('sign_in_identities').where({ subject: who.sub }).first())?.user_id, owner.id);

  // The link works once.
  const replay = await new RedirectingClient().get(link);
  t.is(replay.status, 400);
  t.regex(replay.text, /This link does not work/);

  const later = new RedirectingClient();
  await later.get((await toCallback(later, who)).href);
  t.is(await signedInEmail(later), owner.email);
});

test.serial('a signed-in person links Google from /account/sign-ins; it is listed, and the API lists it too', async (t) => {
  const client = new RedirectingClient();
  const user = await passwordUser(client);
  const who = person({ email: `other-${randomBytes(4).toString('hex')}@example.com` });
  const done = await client.get((await toCallback(client, who, 'POST /account/sign-ins/google/link')).href);
  t.is(done.url.pathname, '/account/sign-ins');
  t.regex(done.text, /The provider is linked/);
  t.regex(done.text, new RegExp(who.email));
  t.is((await db()('sign_in_identities').where({ subject: who.sub }).first())?.user_id, user.id);
  t.is(await signedInEmail(client), user.email);

  const { key } = await createApiKey(db(), user.id, 'test', ['account:read']);
  const listed = await fetch(`${env.baseUrl}/api/v1/me/sign-in-identities`, { headers: { authorization: `Bearer ${key}` } });
  t.is(listed.status, 200);
  const body = (await listed.json()) as { identities: { provider: string; email: string }[]; has_password: boolean };
  t.deepEqual(
    body.identities.map((i) => [i.provider, i.email]),
    [['google', who.email]],
  );
  t.true(body.has_password);
});

test.serial("a callback whose state is not the attempt's is refused in words and changes nothing; the real one still works", async (t) => {
  const who = person();
  const client = new RedirectingClient();
  const callback = await toCallback(client, who);
  const before = await counts();
  const forged = new URL(callback);
  forged.searchParams.set('state', 'forged-state-value');
  const refused = await client.get(forged.href);
  t.is(refused.status, 400);
  t.regex(refused.text, /does not belong to the sign-in this browser started/);
  t.deepEqual(await counts(), before);
  t.is(await signedInEmail(client), null);

  const real = await client.get(callback.href);
  t.is(real.url.pathname, '/account');
  t.is(await signedInEmail(client), who.email);
});

test.serial('a replayed callback and a replayed code are refused in words, with no account change', async (t) => {
  const who = person();
  const client = new RedirectingClient();
  const callback = await toCallback(client, who);
  await client.get(callback.href);
  t.is(await signedInEmail(client), who.email);
  const after = await counts();

  // The same callback again, in another browser and in this one.
  const elsewhere = await new RedirectingClient().get(callback.href);
  t.is(elsewhere.status, 400);
  t.regex(elsewhere.text, /This sign-in did not work/);
  const again = await client.get(callback.href);
  t.is(again.status, 400);

  // The used code inside a fresh attempt of a new browser: the provider refuses it.
  const attacker = new RedirectingClient();
  const fresh = await toCallback(attacker, person());
  const replayed = new URL(fresh);
  replayed.searchParams.set('code', callback.searchParams.get('code')!);
  const refused = await attacker.get(replayed.href);
  t.is(refused.status, 400);
  t.regex(refused.text, /did not accept the sign-in/);
  t.is(await signedInEmail(attacker), null);
  t.deepEqual(await counts(), after);
});

test.serial('an attempt older than 10 minutes has expired', async (t) => {
  const client = new RedirectingClient();
  const callback = await toCallback(client, person());
  const before = await counts();
  clock.advance(11 * 60 * 1000);
  const expired = await client.get(callback.href);
  t.is(expired.status, 400);
  t.regex(expired.text, /took longer than 10 minutes and expired/);
  t.deepEqual(await counts(), before);
});

test.serial('an unverified Google address neither makes an account nor links, even to its own address', async (t) => {
  const owner = await passwordUser(null);
  for (const email of [`new-${randomBytes(4).toString('hex')}@example.com`, owner.email]) {
    const client = new RedirectingClient();
    const before = await counts();
    const mailsBefore = (await mailsTo(db(), email)).length;
    const refused = await client.get((await toCallback(client, person({ email, email_verified: false }))).href);
    t.is(refused.status, 422);
    t.regex(refused.text, /did not give us a confirmed email address/);
    t.deepEqual(await counts(), before);
    t.is((await mailsTo(db(), email)).length, mailsBefore, 'no confirmation mail');
    t.is(await signedInEmail(client), null);
  }
});

test.serial('a signed-in person cannot link a Google account whose address belongs to another account here', async (t) => {
  const other = await passwordUser(null);
  const client = new RedirectingClient();
  const me = await passwordUser(client);
  const before = await counts();
  const refused = await client.get((await toCallback(client, person({ email: other.email }), 'POST /account/sign-ins/google/link')).href);
  t.is(refused.status, 422);
  t.regex(refused.text, /belongs to another account here/);
  t.deepEqual(await counts(), before);
  t.is(await signedInEmail(client), me.email, 'still the same person');
});

test.serial('unlinking the last way to sign in is refused; with a password it unlinks', async (t) => {
  const who = person();
  const client = new RedirectingClient();
  await client.get((await toCallback(client, who)).href);
  const refused = await client.post(`${env.baseUrl}/account/sign-ins/google/unlink`, { _csrf: await csrf(client, '/account/sign-ins') });
  t.is(refused.status, 422);
  t.regex(refused.text, /only way to sign in to your account/);
  t.truthy(await db()('sign_in_identities').where({ subject: who.sub }).first());
  // The operation refuses the same way over the API.
  const user = await db()('users').where({ email: who.email }).first('id');
  const { key } = await createApiKey(db(), user!.id, 'test', ['account:read']);
  const api = await fetch(`${env.baseUrl}/api/v1/me/sign-in-identities/google`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${key}` },
  });
  t.is(api.status, 422);
  t.is(((await api.json()) as { code: string }).code, 'last_sign_in_method');
  t.truthy(await db()('sign_in_identities').where({ subject: who.sub }).first());

  await db()('users').where({ email: who.email }).update({ password_hash: 'set by a reset link' });
  const unlinked = await client.post(`${env.baseUrl}/account/sign-ins/google/unlink`, { _csrf: await csrf(client, '/account/sign-ins') });
  t.is(unlinked.url.pathname, '/account/sign-ins');
  t.regex(unlinked.text, /The provider is unlinked/);
  t.falsy(await db()('sign_in_identities').where({ subject: who.sub }).first());
});

test.serial('the sign-in and sign-up pages show the Google button; an unconfigured provider is not found', async (t) => {
  const client = new RedirectingClient();
  for (const path of ['/signin', '/signup']) {
    const page = await client.get(`${env.baseUrl}${path}`);
    t.regex(page.text, /href="\/signin\/google">Continue with Google</);
    t.notRegex(page.text, /Continue with GitHub/);
  }
  t.is((await client.get(`${env.baseUrl}/signin/github`)).status, 404);
});
