import test from 'ava';
import { request, startTestEnv, type TestEnv } from '../helpers/env.ts';

// A NUL byte cannot be stored in PostgreSQL's text: wherever one arrives (a path, a query, an
// OAuth form parameter) the answer is a 400 that says so, never a 500.

let env: TestEnv;
let clientId: string;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  // A registered public client, so that the token and revocation endpoints get past client authentication.
  const registered = await request(env, 'POST', '/oauth/register', {
    body: { redirect_uris: ['http://127.0.0.1:47999/callback'], token_endpoint_auth_method: 'none', client_name: 'NUL test' },
  });
  if (registered.status !== 201) throw new Error(registered.text);
  clientId = registered.body.client_id;
});
test.after.always(() => env?.close());

const form = (fields: Record<string, string>) => ({
  body: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

const cases: [string, string, string, (() => ReturnType<typeof form>) | undefined][] = [
  ['a card image path', 'GET', '/media/cards/x%00.png', undefined],
  ['a story path', 'GET', '/stories/%00', undefined],
  ['a listing path', 'GET', '/listings/a%00b', undefined],
  ['an authorize client_id', 'GET', '/oauth/authorize?client_id=%00&response_type=code', undefined],
  ['a search query', 'GET', '/api/v1/listings?q=a%00', undefined],
  ['a token client_id', 'POST', '/oauth/token', () => form({ grant_type: 'authorization_code', client_id: '\0', code: 'x' })],
  [
    'a token code',
    'POST',
    '/oauth/token',
    () =>
      form({
        grant_type: 'authorization_code',
        client_id: clientId,
        code: 'a\0b',
        code_verifier: 'v'.repeat(43),
        redirect_uri: 'http://127.0.0.1:47999/callback',
      }),
  ],
  ['a refresh token', 'POST', '/oauth/token', () => form({ grant_type: 'refresh_token', client_id: clientId, refresh_token: '\0' })],
  ['a revoked token', 'POST', '/oauth/revoke', () => form({ client_id: clientId, token: 'x\0' })],
];

for (const [what, method, path, body] of cases) {
  test(`a NUL byte in ${what} is a 400`, async (t) => {
    const res = await request(env, method, path, body?.() ?? {});
    t.is(res.status, 400, `${method} ${path}: ${res.text.slice(0, 300)}`);
    t.false(res.text.includes('    at '), 'no stack trace');
  });
}

test('text without NUL still reaches its route', async (t) => {
  t.is((await request(env, 'GET', '/stories/nobody')).status, 404);
  t.is((await request(env, 'GET', '/api/v1/listings?q=a%01b')).status, 200);
});
