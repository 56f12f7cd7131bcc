import { createHash, randomBytes } from 'node:crypto';
import test from 'ava';
import type { Browser } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { UNUSED_CLIENT_TTL_SECONDS } from '../../src/auth/oauth/pg-adapter.ts';
import { startBrowserTestEnv } from '../helpers/browser.ts';
import { request, type TestEnv } from '../helpers/env.ts';
import { authorizeInBrowser, CALLBACK_URL } from '../helpers/oauth-client.ts';

/**
 * What anyone can make the authorization server do with a client they registered themselves:
 * no redirects to their site before a person consented, no logout redirects, a bounded number
 * of registrations per address, and clients nobody uses go away.
 */
const LIMIT = 3;
let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, {
    TRUST_PROXY_HOPS: '1', // so each test can register from its own (forwarded) address
    OAUTH_REGISTRATIONS_PER_IP: String(LIMIT),
    OAUTH_REGISTRATION_WINDOW_SECONDS: '600',
  }));
});
test.after.always(() => close?.());

const EVIL = 'https://evil.example/cb';
let lastAddress = 0;
/** A client address no other test of this file uses (through the trusted proxy's X-Forwarded-For). */
const newAddress = () => `198.51.100.${++lastAddress}`;

function register(redirectUris: string[], from = newAddress()) {
  return request(env, 'POST', '/oauth/register', {
    body: {
      client_name: 'Some Client',
      redirect_uris: redirectUris,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    },
    headers: { 'x-forwarded-for': from },
  });
}

async function clientFor(redirectUri: string): Promise<string> {
  const res = await register([redirectUri]);
  if (res.status !== 201) throw new Error(`registration failed: ${JSON.stringify(res.body)}`);
  return res.body.client_id;
}

const challenge = () => createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');

function authorizePath(params: Record<string, string>): string {
  const query = new URLSearchParams({ response_type: 'code', scope: 'account:read', state: 'st', ...params });
  for (const [name, value] of Object.entries(params)) if (value === '') query.delete(name);
  return `/oauth/authorize?${query}`;
}

test('attack: authorization errors before consent are shown on our page, never redirected to a registered site', async (t) => {
  const clientId = await clientFor(EVIL);
  const base = { client_id: clientId, redirect_uri: EVIL, code_challenge: challenge(), code_challenge_method: 'S256' };
  const attacks: Record<string, Record<string, string>> = {
    'no PKCE': { code_challenge: '', code_challenge_method: '' },
    'plain PKCE': { code_challenge_method: 'plain' },
    'malformed code_challenge': { code_challenge: 'short' },
    'prompt=none (silent probe)': { prompt: 'none' },
    'unsupported response type': { response_type: 'token' },
    'unknown resource': { resource: 'https://other.example/' },
    'form_post response mode': { response_mode: 'form_post', prompt: 'none' },
    'fragment response mode': { response_mode: 'fragment', prompt: 'none' },
    'unknown response mode': { response_mode: 'web_message', prompt: 'none' },
    'a request object': { request: 'e30.e30.' },
  };
  for (const [name, params] of Object.entries(attacks)) {
    const res = await request(env, 'GET', authorizePath({ ...base, ...params }));
    t.true(res.status >= 400 && res.status < 500, `${name}: ${res.status} ${res.headers.get('location')}`);
    t.is(res.headers.get('location'), null, name);
    t.regex(String(res.body), /This sign-in request cannot continue/, name);
    t.notRegex(String(res.body), /evil\.example/, `${name}: no form or link to the client`);
  }
  // By POST (which the provider does not serve) neither.
  const post = await request(env, 'POST', '/oauth/authorize', {
    body: new URLSearchParams({ ...base, response_type: 'code', prompt: 'none' }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.is(post.headers.get('location'), null);
  t.true(post.status >= 400 && post.status < 500, String(post.status));
});

test('a loopback redirect URI (a native app or agent) still gets the error, as RFC 8252 expects', async (t) => {
  const clientId = await clientFor(CALLBACK_URL);
  const res = await request(
    env,
    'GET',
    authorizePath({
      client_id: clientId,
      redirect_uri: CALLBACK_URL,
      prompt: 'none',
      code_challenge: challenge(),
      code_challenge_method: 'S256',
    }),
  );
  t.is(res.status, 303);
  const location = new URL(res.headers.get('location')!);
  t.is(`${location.origin}${location.pathname}`, CALLBACK_URL);
  t.is(location.searchParams.get('error'), 'login_required');
  t.is(location.searchParams.get('state'), 'st');
});

test('after consent the answer goes back to the registered site, whatever it is', async (t) => {
  const site = 'https://app.example/oauth/cb';
  const clientId = await clientFor(site);
  const page = await browser.newPage();
  const user = { email: `consent-${randomBytes(3).toString('hex')}@example.com`, password: 'a fine long password' };
  await createVerifiedUser(env.services.db, user.email, user.password);
  await page.goto(
    `${env.baseUrl}${authorizePath({ client_id: clientId, redirect_uri: site, code_challenge: challenge(), code_challenge_method: 'S256' })}`,
  );
  await page.getByLabel('Email address').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // The browser's request for the site is the answer (app.example resolves nowhere; a route cannot
  // answer the target of a redirect).
  const [sent] = await Promise.all([
    page.waitForRequest((r) => r.isNavigationRequest() && r.url().startsWith(site)),
    page.getByRole('button', { name: 'Deny' }).click(),
  ]);
  t.is(new URL(sent.url()).searchParams.get('error'), 'access_denied');
  await page.close();
});

test('attack: /oauth/logout does not redirect to post_logout_redirect_uri (there is no logout endpoint)', async (t) => {
  const clientId = await clientFor(EVIL);
  for (const method of ['GET', 'POST']) {
    const query = new URLSearchParams({ client_id: clientId, post_logout_redirect_uri: EVIL });
    const res = await request(env, method, `/oauth/logout?${query}`);
    t.is(res.headers.get('location'), null, method);
    t.is(res.status, 404, method);
  }
  const metadata = await request(env, 'GET', '/.well-known/openid-configuration');
  t.is(metadata.body.end_session_endpoint, undefined);
});

// Serial: it counts every registered client, so no other test of this file may register meanwhile.
test.serial('attack: registration flood from one address is refused with 429 and Retry-After; other addresses go on', async (t) => {
  const from = newAddress();
  for (let i = 0; i < LIMIT; i++) t.is((await register([CALLBACK_URL], from)).status, 201);
  const clientsBefore = await env.services.db('oauth_payloads').where({ model: 'Client' }).count<{ count: string }[]>({ count: '*' });
  const refused = await register([CALLBACK_URL], from);
  t.is(refused.status, 429);
  t.is(refused.body.code, 'rate_limited');
  const retryAfter = Number(refused.headers.get('retry-after'));
  t.true(retryAfter >= 1 && retryAfter <= 600, String(retryAfter));
  // Hammering does not push the wait further out, and nothing is registered meanwhile.
  const again = await register([CALLBACK_URL], from);
  t.is(again.status, 429);
  t.true(Number(again.headers.get('retry-after')) <= retryAfter);
  const clientsAfter = await env.services.db('oauth_payloads').where({ model: 'Client' }).count<{ count: string }[]>({ count: '*' });
  t.deepEqual(clientsAfter, clientsBefore);
  t.is((await register([CALLBACK_URL], newAddress())).status, 201);
  // Browser-based clients can read the refusal.
  const cors = await request(env, 'POST', '/oauth/register', {
    body: {},
    headers: { 'x-forwarded-for': from, origin: 'https://agent.example' },
  });
  t.is(cors.status, 429);
  t.is(cors.headers.get('access-control-allow-origin'), '*');
});

test('attack: a burst of parallel registrations from one address gets exactly the limit through', async (t) => {
  const from = newAddress();
  const statuses = (await Promise.all(Array.from({ length: 12 }, () => register([CALLBACK_URL], from)))).map((r) => r.status);
  t.is(statuses.filter((s) => s === 201).length, LIMIT, statuses.join(' '));
  t.is(statuses.filter((s) => s === 429).length, statuses.length - LIMIT);
});

test('clients never used within 24 hours expire and are purged; a client with a grant stays', async (t) => {
  const unused = await clientFor(CALLBACK_URL);
  const used = await clientFor(CALLBACK_URL);
  const row = (id: string) => env.services.db('oauth_payloads').where({ model: 'Client', id }).first('expires_at');
  const expiresAt = (await row(unused))!.expires_at as Date;
  t.true(Math.abs(expiresAt.getTime() - Date.now() - UNUSED_CLIENT_TTL_SECONDS * 1000) < 60_000, String(expiresAt));

  const user = { email: `used-${randomBytes(3).toString('hex')}@example.com`, password: 'a fine long password' };
  await createVerifiedUser(env.services.db, user.email, user.password);
  const url = new URL(
    `${env.baseUrl}${authorizePath({ client_id: used, redirect_uri: CALLBACK_URL, code_challenge: challenge(), code_challenge_method: 'S256' })}`,
  );
  await authorizeInBrowser(browser, url, user);
  t.is((await row(used))!.expires_at, null, 'its first grant keeps the client');

  // A day passes: the unused client's time is up.
  await env.services
    .db('oauth_payloads')
    .where({ model: 'Client', id: unused })
    .update({ expires_at: new Date(Date.now() - 1000) });
  const stale = await request(
    env,
    'GET',
    authorizePath({ client_id: unused, redirect_uri: CALLBACK_URL, code_challenge: challenge(), code_challenge_method: 'S256' }),
  );
  t.is(stale.status, 400);
  t.regex(String(stale.body), /client/i);
  await clientFor(CALLBACK_URL); // any registration sweeps expired clients
  t.is(await row(unused), undefined, 'the unused client is purged');
  t.truthy(await row(used));
  const fresh = await request(
    env,
    'GET',
    authorizePath({ client_id: used, redirect_uri: CALLBACK_URL, code_challenge: challenge(), code_challenge_method: 'S256' }),
  );
  t.is(fresh.status, 303);
  t.regex(fresh.headers.get('location') ?? '', /\/consent\//);
});
