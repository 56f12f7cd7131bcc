import { randomBytes } from 'node:crypto';
import test from 'ava';
import { freePort, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { RedirectingClient, startFakeGitHub, type FakeGitHub, type GitHubPerson } from '../helpers/identity-providers.ts';

// "Continue with GitHub" (OAuth 2, not OpenID Connect) against a GitHub of the endpoints we call,
// on loopback: authorize, access_token, and the API's /user and /user/emails. Serial: the fake
// signs in one person at a time.

let env: TestEnv;
let github: FakeGitHub;

test.before(async () => {
  github = await startFakeGitHub(await freePort());
  env = await startTestEnv(import.meta.url, {
    GITHUB_CLIENT_ID: github.clientId,
    GITHUB_CLIENT_SECRET: github.clientSecret,
    GITHUB_WEB_URL: github.webUrl,
    GITHUB_API_URL: github.apiUrl,
  });
});
test.after.always(async () => {
  await env?.close();
  await github?.close();
});

const CALLBACK = /\/signin\/github\/callback\?/;
let nextId = 1000;
const person = (emails: GitHubPerson['emails']): GitHubPerson => ({
  id: nextId++,
  login: `octo-${randomBytes(3).toString('hex')}`,
  emails,
});

async function toCallback(client: RedirectingClient, who: GitHubPerson): Promise<URL> {
  github.signInAs(who);
  const res = await client.get(`${env.baseUrl}/signin/github`, { stopAt: CALLBACK });
  if (!res.stoppedAt) throw new Error(`no callback: ${res.status} ${res.text.slice(0, 300)}`);
  return res.stoppedAt;
}

const identities = async () => Number((await env.services.db('sign_in_identities').count({ n: '*' }))[0]!.n);

test.serial('a GitHub person signs up with their verified primary address; unverified addresses are never used', async (t) => {
  const primary = `gh-${randomBytes(4).toString('hex')}@example.com`;
  const unverified = `gh-unverified-${randomBytes(4).toString('hex')}@example.com`;
  const who = person([
    { email: unverified, verified: false, primary: false },
    { email: `gh-other-${randomBytes(4).toString('hex')}@example.com`, verified: true, primary: false },
    { email: primary, verified: true, primary: true },
  ]);
  const client = new RedirectingClient();
  const callback = await toCallback(client, who);
  t.truthy(callback.searchParams.get('state'));
  const done = await client.get(callback.href);
  t.is(done.url.pathname, '/account');
  t.regex(done.text, new RegExp(`<dd>${primary}</dd>`));
  const identity = await env.services
    .db('sign_in_identities')
    .where({ provider: 'github', subject: String(who.id) })
    .first();
  t.is(identity?.email, primary);
  t.falsy(await env.services.db('users').where({ email: unverified }).first());
});

test.serial('a GitHub account without a verified address neither makes an account nor links', async (t) => {
  const email = `gh-${randomBytes(4).toString('hex')}@example.com`;
  const before = await identities();
  const client = new RedirectingClient();
  const refused = await client.get((await toCallback(client, person([{ email, verified: false, primary: true }]))).href);
  t.is(refused.status, 422);
  t.regex(refused.text, /GitHub did not give us a confirmed email address/);
  t.is(await identities(), before);
  t.falsy(await env.services.db('users').where({ email }).first());
});

test.serial('a used GitHub code is refused (GitHub answers 200 with an error) and changes nothing', async (t) => {
  const who = person([{ email: `gh-${randomBytes(4).toString('hex')}@example.com`, verified: true, primary: true }]);
  const first = new RedirectingClient();
  const used = await toCallback(first, who);
  await first.get(used.href);
  const before = await identities();

  const second = new RedirectingClient();
  const fresh = await toCallback(second, who);
  const replayed = new URL(fresh);
  replayed.searchParams.set('code', used.searchParams.get('code')!);
  const refused = await second.get(replayed.href);
  t.is(refused.status, 400);
  t.regex(refused.text, /GitHub did not accept the sign-in/);
  t.is(await identities(), before);
});

test.serial('the sign-in page shows only the configured provider', async (t) => {
  const page = await new RedirectingClient().get(`${env.baseUrl}/signin`);
  t.regex(page.text, /Continue with GitHub/);
  t.notRegex(page.text, /Continue with Google/);
});
