import { createHash, randomBytes } from 'node:crypto';
import test from 'ava';
import { request, startTestEnv, type TestEnv } from '../helpers/env.ts';

/**
 * What an unauthenticated caller can send the authorization server: no parameter value and no
 * client metadata makes it fail with a 500, and its own error pages carry our pages' headers.
 */
let env: TestEnv;
let clientId: string;
const REDIRECT = 'https://app.example/cb';
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  const res = await request(env, 'POST', '/oauth/register', {
    body: { client_name: 'Params Client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.text}`);
  clientId = res.body.client_id;
});
test.after.always(() => env?.close());

function authorizePath(extra: Record<string, string>): string {
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const query = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'account:read',
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });
  return `/oauth/authorize?${query}`;
}

const interactions = async () => Number((await env.services.db('oauth_payloads').where({ model: 'Interaction' }).count({ n: '*' }))[0]!.n);

/** The headers src/web/security-headers.ts gives every page of ours. */
function assertPageHeaders(t: import('ava').ExecutionContext, headers: Headers, what: string) {
  t.regex(headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/, what);
  t.regex(headers.get('content-security-policy') ?? '', /default-src 'self'/, what);
  t.is(headers.get('x-frame-options'), 'DENY', what);
  t.is(headers.get('x-content-type-options'), 'nosniff', what);
  t.is(headers.get('referrer-policy'), 'no-referrer', what);
}

test('a control character in an authorization parameter is a 400 before anything is stored (a NUL was a 500)', async (t) => {
  // A well-formed request starts an interaction (a redirect to the consent page).
  const before = await interactions();
  const ok = await request(env, 'GET', authorizePath({ ui_locales: 'en' }));
  t.is(ok.status, 303, ok.text);
  t.is(await interactions(), before + 1);
  // A NUL is refused at the edge, before the provider reads anything (src/http/nul-guard.ts).
  for (const [name, value] of [
    ['ui_locales', '\u0000'],
    ['login_hint', 'me\u0000@example.com'],
  ] as const) {
    const res = await request(env, 'GET', authorizePath({ [name]: value }));
    t.is(res.status, 400, `${name}: ${res.text}`);
    t.regex(res.text, /NUL character/, name);
    t.is(res.headers.get('location'), null, name);
  }
  for (const [name, value] of [
    ['display', 'page\n'],
    ['state', 'st\u001b[31m'],
    ['login_hint', 'me\u007f'],
    ['ui_locales', 'en \u0085de'],
  ] as const) {
    const res = await request(env, 'GET', authorizePath({ [name]: value }));
    t.is(res.status, 400, `${name}: ${res.text}`);
    t.regex(res.text, new RegExp(`${name} must be one line of text without control characters`), name);
    t.is(res.headers.get('location'), null, name);
    assertPageHeaders(t, res.headers, name);
  }
  t.is(await interactions(), before + 1, 'no interaction was stored for a refused request');
});

test('a pushed authorization request (PAR) with a control character is a 400 invalid_request, nothing stored', async (t) => {
  const pushed = async () =>
    Number((await env.services.db('oauth_payloads').where({ model: 'PushedAuthorizationRequest' }).count({ n: '*' }))[0]!.n);
  const before = await pushed();
  const form = (extra: Record<string, string>) => new URL(authorizePath(extra), env.baseUrl).searchParams.toString();
  const ok = await request(env, 'POST', '/oauth/par', { body: form({}), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.is(ok.status, 201, ok.text);
  const res = await request(env, 'POST', '/oauth/par', {
    body: form({ login_hint: 'a\u0000b' }),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.is(res.status, 400, res.text);
  t.is(res.body.error, 'invalid_request');
  t.regex(res.body.error_description, /login_hint must be one line/);
  t.is(await pushed(), before + 1);
});

test('client metadata PostgreSQL cannot store is a 400 invalid_client_metadata, not a 500', async (t) => {
  for (const name of ['Nul\u0000Client', 'Lone \ud800 surrogate']) {
    const res = await request(env, 'POST', '/oauth/register', {
      body: `{"client_name":${JSON.stringify(name)},"redirect_uris":["${REDIRECT}"],"token_endpoint_auth_method":"none"}`,
    });
    t.is(res.status, 400, res.text);
    t.is(res.body.error, 'invalid_client_metadata', res.text);
  }
});

test('the authorization server’s own error pages carry the CSP and frame headers of our pages', async (t) => {
  for (const path of ['/oauth/authorize', `/oauth/authorize?client_id=${clientId}`, '/oauth/authorize?client_id=nobody']) {
    const res = await request(env, 'GET', path);
    t.is(res.status, 400, path);
    t.regex(res.headers.get('content-type') ?? '', /^text\/html/, path);
    assertPageHeaders(t, res.headers, path);
  }
});
