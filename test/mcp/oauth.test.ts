import { createHash, randomBytes } from 'node:crypto';
import test from 'ava';
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type CallToolResult } from '@modelcontextprotocol/client';
import { importJWK, SignJWT } from 'jose';
import type { Browser } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { revokeGrant } from '../../src/auth/oauth/grants.ts';
import { startBrowserTestEnv } from '../helpers/browser.ts';
import { request, type TestEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/eventually.ts';
import { authorizeInBrowser, CALLBACK_URL, MemoryOAuthClient } from '../helpers/oauth-client.ts';

const MODERN = '2026-07-28';
const LEGACY = ['2025-03-26', '2025-06-18', '2025-11-25'];
const PASSWORD = 'correct horse battery staple';

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => ({ env, browser, close } = await startBrowserTestEnv(import.meta.url)));
test.after.always(() => close?.());

async function account() {
  const email = `agent-owner-${randomBytes(4).toString('hex')}@example.com`;
  const user = await createVerifiedUser(env.services.db, email, PASSWORD);
  return { id: user.id, email, password: PASSWORD };
}

function mcpClient(version: string, auth: MemoryOAuthClient) {
  const client =
    version === MODERN
      ? new Client({ name: 'agent', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } })
      : new Client({ name: 'agent', version: '1.0.0' }, { supportedProtocolVersions: [version] });
  const transport = new StreamableHTTPClientTransport(new URL(`${env.baseUrl}/mcp`), { authProvider: auth });
  return { client, transport };
}

/** The whole sign-in of an MCP client from scratch, as an agent and its user would do it. */
async function signInFromScratch(version: string, user: { email: string; password: string }) {
  const auth = new MemoryOAuthClient();
  const first = mcpClient(version, auth);
  await first.client.connect(first.transport);
  // Public tools work before any sign-in.
  const search = (await first.client.callTool({ name: 'search_listings', arguments: {} })) as CallToolResult;
  const protectedCall = await first.client.callTool({ name: 'list_my_listings', arguments: {} }).catch((err: unknown) => err);
  await first.client.close();
  if (!(protectedCall instanceof UnauthorizedError)) throw new Error(`expected a sign-in, got ${String(protectedCall)}`);
  const { callback, consentText } = await authorizeInBrowser(browser, auth.authorizationUrl!, user);
  await first.transport.finishAuth(callback.searchParams);
  const second = mcpClient(version, auth);
  await second.client.connect(second.transport);
  return { auth, client: second.client, search, consentText };
}

for (const version of [MODERN, ...LEGACY]) {
  test.serial(`${version}: the official client signs in from scratch and calls public and protected tools`, async (t) => {
    const user = await account();
    const { auth, client, search, consentText } = await signInFromScratch(version, user);
    t.falsy(search.isError);
    t.regex(consentText, /Test Agent/);
    t.regex(consentText, /127\.0\.0\.1:47999/);
    t.regex(consentText, /account:read/);
    const { tools } = await client.listTools();
    t.true(tools.some((tool) => tool.name === 'list_my_listings'));
    const mine = (await client.callTool({ name: 'list_my_listings', arguments: {} })) as CallToolResult;
    t.falsy(mine.isError, JSON.stringify(mine));
    t.like(mine.structuredContent, { items: [], total: 0 });
    const tokens = auth.tokens()!;
    t.truthy(tokens.refresh_token);
    t.is(tokens.token_type.toLowerCase(), 'bearer');
    await client.close();
  });
}

test.serial('the consent page can be denied: the client gets access_denied and no grant exists', async (t) => {
  const user = await account();
  const auth = new MemoryOAuthClient('Denied Agent');
  const { client, transport } = mcpClient(MODERN, auth);
  await client.connect(transport);
  await t.throwsAsync(client.callTool({ name: 'list_my_listings', arguments: {} }), { instanceOf: UnauthorizedError });
  const { callback } = await authorizeInBrowser(browser, auth.authorizationUrl!, user, 'Deny');
  t.is(callback.searchParams.get('error'), 'access_denied');
  t.is(callback.searchParams.get('code'), null);
  const grants = await env.services
    .db('oauth_payloads')
    .where({ model: 'Grant' })
    .whereRaw("payload->>'accountId' = ?", [String(user.id)]);
  t.is(grants.length, 0);
  await client.close();
});

// ---- the authorization server, spoken to directly ----

async function register(redirectUris = [CALLBACK_URL]): Promise<string> {
  const res = await request(env, 'POST', '/oauth/register', {
    body: {
      client_name: 'Raw Client',
      redirect_uris: redirectUris,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    },
  });
  if (res.status !== 201) throw new Error(`registration failed: ${JSON.stringify(res.body)}`);
  return res.body.client_id;
}

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

/** `resource` may name several resources, separated by spaces (each becomes its own parameter). */
function authorizeUrl(clientId: string, params: Record<string, string>): URL {
  const url = new URL(`${env.baseUrl}/oauth/authorize`);
  const all = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: CALLBACK_URL,
    scope: 'account:read',
    resource: `${env.baseUrl}/mcp`,
    state: 's1',
    ...params,
  };
  for (const [name, value] of Object.entries(all)) {
    for (const one of name === 'resource' ? value.split(' ') : [value]) if (one !== '') url.searchParams.append(name, one);
  }
  return url;
}

function token(form: Record<string, string>) {
  return request(env, 'POST', '/oauth/token', {
    body: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

/** A code for a fresh client and user, through the real pages; `resource` as in authorizeUrl. */
async function codeFor(user: { email: string; password: string }, resource = `${env.baseUrl}/mcp`) {
  const clientId = await register();
  const { verifier, challenge } = pkce();
  const { callback } = await authorizeInBrowser(
    browser,
    authorizeUrl(clientId, { code_challenge: challenge, code_challenge_method: 'S256', resource }),
    user,
  );
  return { clientId, verifier, code: callback.searchParams.get('code')! };
}

const exchange = (c: { clientId: string; verifier: string; code: string }, extra: Record<string, string> = {}) =>
  token({
    grant_type: 'authorization_code',
    client_id: c.clientId,
    code: c.code,
    redirect_uri: CALLBACK_URL,
    code_verifier: c.verifier,
    resource: `${env.baseUrl}/mcp`,
    ...extra,
  });

/** True once /mcp refuses the token (401): within 2.5 s, as the revoked-grant view refreshes every 2 s. */
const refusedSoon = (bearer: string) =>
  eventually('a revoked token to be refused', async () => (await mcpStatus(bearer)) === 401, { timeoutMs: 2_500, intervalMs: 100 });

/** HTTP status of a protected MCP tool call with this bearer token. */
async function mcpStatus(bearer: string): Promise<number> {
  const res = await request(env, 'POST', '/mcp', {
    key: bearer,
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_my_listings', arguments: {} } },
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
  });
  return res.status;
}

/** HTTP status of a protected REST call with this bearer token. */
const restStatus = async (bearer: string) => (await request(env, 'GET', '/api/v1/me/listings', { key: bearer })).status;

const audienceOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).aud;

test.serial('metadata: authorization server, OpenID configuration and protected resource', async (t) => {
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    const res = await request(env, 'GET', path);
    t.is(res.status, 200);
    t.is(res.body.issuer, env.baseUrl);
    t.is(res.body.authorization_endpoint, `${env.baseUrl}/oauth/authorize`);
    t.is(res.body.token_endpoint, `${env.baseUrl}/oauth/token`);
    t.is(res.body.registration_endpoint, `${env.baseUrl}/oauth/register`);
    t.deepEqual(res.body.code_challenge_methods_supported, ['S256']);
    t.deepEqual(res.body.response_types_supported, ['code']);
    t.false(res.body.grant_types_supported.includes('implicit'));
    t.true(res.body.client_id_metadata_document_supported);
    t.true(res.body.scopes_supported.includes('listings:write'));
  }
  const preflight = await request(env, 'OPTIONS', '/oauth/register', {
    headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST' },
  });
  t.is(preflight.status, 204);
  t.is(preflight.headers.get('access-control-allow-origin'), '*');
});

test.serial('PKCE is required and must match', async (t) => {
  const user = await account();
  const clientId = await register();
  // Without a code_challenge the request goes back to the client with an error, no code.
  const noPkce = await request(env, 'GET', authorizeUrl(clientId, {}).pathname + authorizeUrl(clientId, {}).search);
  t.is(noPkce.status, 303);
  const callback = new URL(noPkce.headers.get('location')!);
  t.is(`${callback.origin}${callback.pathname}`, CALLBACK_URL);
  t.is(callback.searchParams.get('error'), 'invalid_request');
  t.regex(callback.searchParams.get('error_description') ?? '', /PKCE/);
  t.is(callback.searchParams.get('code'), null);

  const c = await codeFor(user);
  const wrong = await exchange(c, { code_verifier: pkce().verifier });
  t.is(wrong.status, 400);
  t.is(wrong.body.error, 'invalid_grant');
});

test.serial('an unregistered redirect URI is refused on our page, never redirected to', async (t) => {
  const clientId = await register();
  const page = await browser.newPage();
  let leaked = false;
  await page.route('http://evil.example/**', (route) => {
    leaked = true;
    return route.fulfill({ body: 'x' });
  });
  const { challenge } = pkce();
  const res = await page.goto(
    authorizeUrl(clientId, { redirect_uri: 'http://evil.example/cb', code_challenge: challenge, code_challenge_method: 'S256' }).toString(),
  );
  t.is(res?.status(), 400);
  t.false(leaked);
  t.regex(await page.locator('body').innerText(), /redirect_uri/);
  await page.close();
});

test.serial('a code works once, for our resource only; tokens carry the audience and the scopes', async (t) => {
  const user = await account();
  const wrongResource = await exchange(await codeFor(user), { resource: 'https://other.example/mcp' });
  t.is(wrongResource.status, 400);
  t.is(wrongResource.body.error, 'invalid_target');

  const c = await codeFor(user);
  const first = await exchange(c);
  t.is(first.status, 200, JSON.stringify(first.body));
  const [, payload] = first.body.access_token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  t.is(claims.aud, `${env.baseUrl}/mcp`);
  t.is(claims.iss, env.baseUrl);
  t.is(claims.scope, 'account:read');
  t.is(claims.sub, String(user.id));
  const reused = await exchange(c);
  t.is(reused.status, 400);
  t.is(reused.body.error, 'invalid_grant');
  // Reusing a code revokes what it issued, the JWT access token included (seen within 2 s).
  t.true(await refusedSoon(first.body.access_token));
});

test.serial('refresh tokens rotate; a reused rotated refresh token is refused and ends the grant', async (t) => {
  const user = await account();
  const c = await codeFor(user);
  const issued = (await exchange(c)).body;
  const refreshed = await token({ grant_type: 'refresh_token', client_id: c.clientId, refresh_token: issued.refresh_token });
  t.is(refreshed.status, 200);
  t.not(refreshed.body.refresh_token, issued.refresh_token);
  const reused = await token({ grant_type: 'refresh_token', client_id: c.clientId, refresh_token: issued.refresh_token });
  t.is(reused.status, 400);
  t.is(reused.body.error, 'invalid_grant');
  const next = await token({ grant_type: 'refresh_token', client_id: c.clientId, refresh_token: refreshed.body.refresh_token });
  t.is(next.status, 400, 'the whole grant ended with the reuse');
});

test.serial('access tokens for another audience, expired, forged or of a revoked grant are refused', async (t) => {
  const user = await account();
  const c = await codeFor(user);
  const issued = (await exchange(c)).body;
  t.is(await mcpStatus(issued.access_token), 200);

  const jwk = env.services.oauthKeys.signing[0]!;
  const key = await importJWK(jwk as never, 'ES256');
  const mint = (claims: Record<string, unknown>, exp: number, aud = `${env.baseUrl}/mcp`) =>
    new SignJWT({ scope: 'account:read', gid: 'forged', ...claims })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: jwk.kid as string })
      .setIssuer(env.baseUrl)
      .setSubject(String(user.id))
      .setAudience(aud)
      .setIssuedAt()
      .setExpirationTime(exp)
      .sign(key);
  const now = Math.floor(Date.now() / 1000);
  const otherAudience = await mint({}, now + 600, 'https://other.example/mcp');
  const expired = await mint({}, now - 10);
  const { privateKey } = await import('node:crypto').then((c) => c.generateKeyPairSync('ec', { namedCurve: 'P-256' }));
  const forged = await new SignJWT({ scope: 'account:read', gid: 'x' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: jwk.kid as string })
    .setIssuer(env.baseUrl)
    .setSubject(String(user.id))
    .setAudience(`${env.baseUrl}/mcp`)
    .setExpirationTime(now + 600)
    .sign(privateKey);
  for (const [name, bad] of [
    ['another audience', otherAudience],
    ['expired', expired],
    ['forged', forged],
  ] as const) {
    t.is(await mcpStatus(bad), 401, name);
  }
  t.is(await mcpStatus(await mint({}, now + 600)), 200, 'the same token minted right is accepted');

  const grantId = JSON.parse(Buffer.from(issued.access_token.split('.')[1], 'base64url').toString()).gid;
  t.true(await revokeGrant(env.services.db, user.id, grantId));
  t.true(await refusedSoon(issued.access_token));
  const refresh = await token({ grant_type: 'refresh_token', client_id: c.clientId, refresh_token: issued.refresh_token });
  t.is(refresh.body.error, 'invalid_grant');
});

test.serial("another user's listing through an OAuth token is not found", async (t) => {
  const owner = await env.user();
  const [listing] = await env.services
    .db('listings')
    .insert({
      site_id: 1,
      owner_id: owner.userId,
      slug: `secret-${randomBytes(3).toString('hex')}`,
      company_domain: 'secret.example',
      name: 'Secret',
      url: 'https://secret.example/',
    })
    .returning('id');
  const user = await account();
  const issued = (await exchange(await codeFor(user, `${env.baseUrl}/api/v1`), { resource: `${env.baseUrl}/api/v1` })).body;
  const res = await request(env, 'GET', `/api/v1/me/listings/${listing.id}`, { key: issued.access_token });
  t.is(res.status, 404);
});

test.serial('the connected-apps page lists the grant with its scopes; disconnecting ends its tokens', async (t) => {
  const user = await account();
  const c = await codeFor(user);
  const issued = (await exchange(c)).body;
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${env.baseUrl}/signin?return_to=/account/connected-apps`);
  await page.getByLabel('Email address').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const row = page.getByRole('row', { name: /Raw Client/ });
  await row.waitFor();
  t.regex(await row.innerText(), /account:read/);
  await row.getByRole('button', { name: 'Disconnect' }).click();
  await page.getByText('The application is disconnected').waitFor();
  t.false(await page.getByRole('row', { name: /Raw Client/ }).isVisible());
  await context.close();
  t.true(await refusedSoon(issued.access_token));
  const refresh = await token({ grant_type: 'refresh_token', client_id: c.clientId, refresh_token: issued.refresh_token });
  t.is(refresh.body.error, 'invalid_grant');
});

test.serial('the consent form without its CSRF token is refused and grants nothing', async (t) => {
  const user = await account();
  const clientId = await register();
  const { challenge } = pkce();
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(authorizeUrl(clientId, { code_challenge: challenge, code_challenge_method: 'S256' }).toString());
  await page.getByLabel('Email address').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  await page.locator('main input[name="_csrf"]').evaluate((input) => input.remove());
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForLoadState();
  t.regex(await page.locator('main').innerText(), /expired|form|security/i);
  const grants = await env.services
    .db('oauth_payloads')
    .where({ model: 'Grant' })
    .whereRaw("payload->>'accountId' = ?", [String(user.id)]);
  t.is(grants.length, 0);
  await context.close();
});

// ---- every token is bound to its resource ----

test.serial('attack: an access token issued for /mcp is refused by the REST API', async (t) => {
  const user = await account();
  const issued = (await exchange(await codeFor(user))).body;
  t.is(audienceOf(issued.access_token), `${env.baseUrl}/mcp`);
  t.is(await mcpStatus(issued.access_token), 200);
  const rest = await request(env, 'GET', '/api/v1/me/listings', { key: issued.access_token });
  t.is(rest.status, 401);
  t.is(rest.body.code, 'unauthorized');
  t.regex(rest.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  // Forged the other way round too: a REST token (right signature, issuer, grant) at /mcp.
  const rest2 = (await exchange(await codeFor(user, `${env.baseUrl}/api/v1`), { resource: `${env.baseUrl}/api/v1` })).body;
  t.is(audienceOf(rest2.access_token), `${env.baseUrl}/api/v1`);
  t.is(await restStatus(rest2.access_token), 200);
  t.is(await mcpStatus(rest2.access_token), 401);
});

test.serial('a client asks for both resources and gets one token per resource, each accepted only there', async (t) => {
  const user = await account();
  const both = `${env.baseUrl}/mcp ${env.baseUrl}/api/v1`;
  const c = await codeFor(user, both);
  const forRest = await exchange(c, { resource: `${env.baseUrl}/api/v1` });
  t.is(forRest.status, 200, JSON.stringify(forRest.body));
  t.is(audienceOf(forRest.body.access_token), `${env.baseUrl}/api/v1`);
  t.is(await restStatus(forRest.body.access_token), 200);
  t.is(await mcpStatus(forRest.body.access_token), 401);

  const forMcp = await token({
    grant_type: 'refresh_token',
    client_id: c.clientId,
    refresh_token: forRest.body.refresh_token,
    resource: `${env.baseUrl}/mcp`,
  });
  t.is(forMcp.status, 200, JSON.stringify(forMcp.body));
  t.is(audienceOf(forMcp.body.access_token), `${env.baseUrl}/mcp`);
  t.is(await mcpStatus(forMcp.body.access_token), 200);
  t.is(await restStatus(forMcp.body.access_token), 401);

  // Without a resource the token is for MCP; a resource outside the grant or unknown is refused.
  const plain = await token({ grant_type: 'refresh_token', client_id: c.clientId, refresh_token: forMcp.body.refresh_token });
  t.is(plain.status, 200, JSON.stringify(plain.body));
  t.is(audienceOf(plain.body.access_token), `${env.baseUrl}/mcp`);
  const unknown = await token({
    grant_type: 'refresh_token',
    client_id: c.clientId,
    refresh_token: plain.body.refresh_token,
    resource: `${env.baseUrl}/api/v2`,
  });
  t.is(unknown.body.error, 'invalid_target');
  const mcpOnly = await codeFor(user);
  const notGranted = await exchange(mcpOnly, { resource: `${env.baseUrl}/api/v1` });
  t.is(notGranted.status, 400);
  t.is(notGranted.body.error, 'invalid_target');
});

test.serial('API keys stay valid for both resources', async (t) => {
  const { key } = await env.user();
  t.is(await restStatus(key), 200);
  t.is(await mcpStatus(key), 200);
});

test.serial('protected resource metadata is published for MCP and for REST', async (t) => {
  for (const [path, resource] of [
    ['/.well-known/oauth-protected-resource/mcp', '/mcp'],
    ['/.well-known/oauth-protected-resource/api/v1', '/api/v1'],
  ]) {
    const res = await request(env, 'GET', path!, { headers: { host: 'evil.example' } });
    t.is(res.status, 200, path);
    t.is(res.body.resource, `${env.baseUrl}${resource}`);
    t.deepEqual(res.body.authorization_servers, [env.baseUrl]);
    t.true(res.body.scopes_supported.includes('listings:write'));
    t.regex(res.headers.get('cache-control') ?? '', /max-age/);
  }
  const metadata = await request(env, 'GET', '/.well-known/oauth-authorization-server');
  t.true(metadata.body.scopes_supported.includes('account:read'));
});
