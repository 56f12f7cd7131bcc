import { createHash, randomBytes } from 'node:crypto';
import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { CALLBACK_URL } from '../helpers/oauth-client.ts';
import { WebClient } from '../helpers/web.ts';

// TRUST_PROXY_HOPS: behind a reverse proxy every request comes from the proxy's address over plain
// http; the client address and scheme must come from the X-Forwarded-* headers the proxy adds.
const PASSWORD = 'the real password';
let behindProxy: TestEnv;
let direct: TestEnv;

test.before(async () => {
  [behindProxy, direct] = await Promise.all([
    startTestEnv(import.meta.url, { TRUST_PROXY_HOPS: '1', SIGNIN_MAX_FAILURES_PER_IP: '3' }),
    startTestEnv(import.meta.url, { SIGNIN_MAX_FAILURES_PER_IP: '3' }),
  ]);
  for (const env of [behindProxy, direct]) await createVerifiedUser(env.services.db, 'bystander@example.com', PASSWORD);
});
test.after.always(() => Promise.all([behindProxy?.close(), direct?.close()]));

/** The client addresses the sign-in limiter counted attempts of (its keys in the shared rate limiter). */
async function countedAddresses(env: TestEnv): Promise<string[]> {
  const keys: string[] = await env.services.db('rate_limits').where('key', 'like', 'signin-ip:%').pluck('key');
  return keys.map((k) => k.slice('signin-ip:'.length));
}

async function signInFrom(env: TestEnv, forwardedFor: string, email: string, password: string): Promise<number> {
  const client = new WebClient(env.baseUrl);
  const _csrf = await client.csrfFrom('/signin');
  return (await client.post('/signin', { _csrf, email, password }, { 'x-forwarded-for': forwardedFor })).status;
}

test.serial('behind a proxy, sign-in failures count per client address, and a client cannot pick its address', async (t) => {
  for (let i = 0; i < 3; i++) t.is(await signInFrom(behindProxy, '198.51.100.1', `nobody${i}@example.com`, 'a guess'), 422);
  t.is(await signInFrom(behindProxy, '198.51.100.1', 'bystander@example.com', PASSWORD), 429);
  // Another person behind the same proxy is not locked out by the first one.
  t.is(await signInFrom(behindProxy, '198.51.100.2', 'bystander@example.com', PASSWORD), 303);
  // The proxy appends the address it saw; what the client wrote before it is not believed.
  t.is(await signInFrom(behindProxy, '198.51.100.2, 198.51.100.1', 'bystander@example.com', PASSWORD), 429);
  t.deepEqual((await countedAddresses(behindProxy)).sort(), ['198.51.100.1', '198.51.100.2']);
});

test.serial('without TRUST_PROXY_HOPS, X-Forwarded-For is ignored: the socket address counts', async (t) => {
  for (let i = 0; i < 3; i++) t.is(await signInFrom(direct, `198.51.100.${10 + i}`, `nobody${i}@example.com`, 'a guess'), 422);
  t.is(await signInFrom(direct, '198.51.100.99', 'bystander@example.com', PASSWORD), 429);
  t.deepEqual(await countedAddresses(direct), ['127.0.0.1']);
});

/** Starts an authorization request as a client would, through a TLS-terminating proxy (X-Forwarded-Proto: https). */
async function authorizeThroughTls(env: TestEnv) {
  const registered = await request(env, 'POST', '/oauth/register', {
    body: {
      client_name: 'Proxy Client',
      redirect_uris: [CALLBACK_URL],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
    },
  });
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: registered.body.client_id,
    redirect_uri: CALLBACK_URL,
    scope: 'account:read',
    resource: `${env.baseUrl}/mcp`,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  return request(env, 'GET', `/oauth/authorize?${query}`, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' } });
}

test('behind a TLS-terminating proxy the authorization server sets Secure cookies; without trust it cannot know', async (t) => {
  const behind = await authorizeThroughTls(behindProxy);
  t.is(behind.status, 303);
  const cookies = behind.headers.getSetCookie();
  t.true(cookies.length >= 2, cookies.join('\n'));
  for (const cookie of cookies) t.regex(cookie, /;\s*secure/i, cookie);

  const plain = await authorizeThroughTls(direct);
  t.is(plain.status, 303);
  for (const cookie of plain.headers.getSetCookie()) t.notRegex(cookie, /;\s*secure/i, cookie);
});

/** Every URL of a discovery document (endpoints, JWKS, issuer). */
const urlsOf = (document: Record<string, unknown>) =>
  Object.entries(document)
    .filter(([, v]) => typeof v === 'string' && /^https?:\/\//.test(v))
    .map(([k, v]) => [k, new URL(v as string)] as const);

test('attack: OAuth discovery never publishes endpoints on the Host a client sent, and is cacheable', async (t) => {
  const forged = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };
  for (const env of [direct, behindProxy]) {
    const base = new URL(env.baseUrl);
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const res = await request(env, 'GET', path, { headers: forged });
      t.is(res.status, 200);
      t.regex(res.headers.get('cache-control') ?? '', /max-age=\d+/);
      const urls = urlsOf(res.body);
      t.true(urls.length >= 5, path);
      for (const [name, url] of urls) t.is(url.host, base.host, `${path} ${name}`);
      t.is(res.body.issuer, env.baseUrl);
      // The scheme follows the trusted proxy's X-Forwarded-Proto only when a proxy is trusted.
      t.is(new URL(res.body.token_endpoint).protocol, env === behindProxy ? 'https:' : 'http:');
    }
    // The authorization endpoint's own redirects are built the same way.
    const res = await request(env, 'GET', '/oauth/authorize?client_id=nobody', { headers: forged });
    t.notRegex(res.headers.get('location') ?? '', /evil\.example/);
  }
});
