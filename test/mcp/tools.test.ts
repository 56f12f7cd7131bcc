import test from 'ava';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { revokeApiKey } from '../../src/auth/api-keys.ts';
import { operations } from '../../src/operations/index.ts';
import { operationSchemas } from '../../src/operations/json-schema.ts';
import { request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';

const MODERN = '2026-07-28';
const LEGACY = ['2025-03-26', '2025-06-18', '2025-11-25'];

let env: TestEnv;
let owner: { userId: number; key: string };
let readOnly: { userId: number; key: string };

test.before(async () => {
  env = await startTestEnv(import.meta.url);
  owner = await env.user();
  readOnly = await env.user(['account:read']);
  await insertLiveListing(env.services.db, { name: 'Orbital Analytics', headline: 'Analytics for rocket launches' });
});
test.after.always(async () => {
  await env?.close();
});

async function connect(version: string, key?: string): Promise<Client> {
  const client =
    version === MODERN
      ? new Client({ name: 'test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } })
      : new Client({ name: 'test', version: '1.0.0' }, { supportedProtocolVersions: [version] });
  const headers: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${env.baseUrl}/mcp`), { requestInit: { headers } }));
  return client;
}

/** The problem object of an isError tool result. */
function problemOf(result: CallToolResult): any {
  if (!result.isError) throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  return JSON.parse((result.content[0] as { text: string }).text);
}

/** A legacy (stateless) JSON-RPC POST without a client, to look at raw HTTP statuses and headers. */
function rawCall(body: unknown, headers: Record<string, string> = {}) {
  return request(env, 'POST', '/mcp', {
    body,
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...headers },
  });
}

async function countDrafts(where: Record<string, unknown>): Promise<number> {
  const row = await env.services.db('drafts').where(where).count({ n: '*' }).first();
  return Number(row?.n);
}

const callList = (name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});

for (const version of [MODERN, ...LEGACY]) {
  test.serial(`${version}: the tool list is the operation registry, both ways, with its schemas and hints`, async (t) => {
    const client = await connect(version);
    t.is(client.getNegotiatedProtocolVersion(), version);
    const { tools } = await client.listTools();
    t.deepEqual(tools.map((tool) => tool.name).sort(), operations.map((op) => op.name).sort());
    for (const op of operations) {
      const tool = tools.find((candidate) => candidate.name === op.name)!;
      const { input } = operationSchemas(op);
      t.deepEqual(
        Object.keys(tool.inputSchema.properties ?? {}).sort(),
        [...Object.keys(input.properties ?? {}), ...(op.idempotent ? ['idempotency_key'] : [])].sort(),
        op.name,
      );
      t.deepEqual(tool.inputSchema.required ?? [], input.required ?? [], op.name);
      t.is(tool.annotations?.readOnlyHint, op.readOnly, op.name);
      t.is(tool.annotations?.destructiveHint, op.destructive ?? false, op.name);
      t.is(tool.annotations?.idempotentHint, op.idempotent || op.readOnly, op.name);
    }
    await client.close();
  });

  test.serial(`${version}: a public tool works without a token`, async (t) => {
    const client = await connect(version);
    const result = (await client.callTool({ name: 'search_listings', arguments: { q: 'analytics' } })) as CallToolResult;
    t.falsy(result.isError);
    const body = result.structuredContent as { items: { name: string }[] };
    t.deepEqual(
      body.items.map((item) => item.name),
      ['Orbital Analytics'],
    );
    t.deepEqual(JSON.parse((result.content[0] as { text: string }).text), body);
    await client.close();
  });

  test.serial(`${version}: an API key works as a Bearer token on a protected tool`, async (t) => {
    const client = await connect(version, owner.key);
    const result = (await client.callTool({ name: 'list_my_listings', arguments: {} })) as CallToolResult;
    t.falsy(result.isError);
    t.like(result.structuredContent, { items: [], page: 1, per_page: 20, total: 0 });
    await client.close();
  });
}

test('a protected tool without a token is HTTP 401 with the resource metadata and the scope', async (t) => {
  const res = await rawCall(callList('list_my_listings'));
  t.is(res.status, 401);
  t.is(
    res.headers.get('www-authenticate'),
    `Bearer resource_metadata="${env.baseUrl}/.well-known/oauth-protected-resource/mcp", scope="account:read"`,
  );
  t.is(res.body.code, 'unauthorized');
});

test('the official client sees the 401 as an authorization error', async (t) => {
  const client = await connect(MODERN);
  const error = await t.throwsAsync(client.callTool({ name: 'create_draft', arguments: { url: 'https://example.com' } }));
  t.regex(String(error?.message), /401|nauthorized/);
  await client.close();
});

test('a token without the scope is 403 insufficient_scope', async (t) => {
  const res = await rawCall(callList('create_draft', { url: 'https://example.com' }), { authorization: `Bearer ${readOnly.key}` });
  t.is(res.status, 403);
  t.is(res.body.code, 'insufficient_scope');
  t.is(
    res.headers.get('www-authenticate'),
    `Bearer resource_metadata="${env.baseUrl}/.well-known/oauth-protected-resource/mcp", error="insufficient_scope", scope="listings:write"`,
  );
  t.is(await countDrafts({ owner_id: readOnly.userId }), 0);
});

test('an unknown, revoked or malformed token is refused at once', async (t) => {
  for (const authorization of ['Bearer ld_not-a-real-key', 'Bearer eyJhbGciOiJFUzI1NiJ9.e30.sig', 'Basic abc']) {
    const res = await rawCall(callList('search_listings'), { authorization });
    t.is(res.status, 401, authorization);
    t.regex(res.headers.get('www-authenticate') ?? '', /^Bearer resource_metadata=".*", error="invalid_(token|request)"$/);
  }
  const user = await env.user(['account:read']);
  const ok = await rawCall(callList('list_my_listings'), { authorization: `Bearer ${user.key}` });
  t.is(ok.status, 200);
  // Revoked as the keys page does (another api process would see it within KEY_CACHE_TTL_MS, see test/auth/api-keys.test.ts).
  const [{ id }] = await env.services.db('api_keys').where({ user_id: user.userId }).select('id');
  t.true(await revokeApiKey(env.services.db, env.services.caches.apiKeys, user.userId, id));
  const revoked = await rawCall(callList('list_my_listings'), { authorization: `Bearer ${user.key}` });
  t.is(revoked.status, 401);
});

test('bad arguments are the same problem object as REST, with field paths', async (t) => {
  const client = await connect(MODERN, owner.key);
  const bad = problemOf((await client.callTool({ name: 'get_draft', arguments: { id: 'abc' } })) as CallToolResult);
  t.is(bad.status, 400);
  t.is(bad.code, 'validation_failed');
  t.deepEqual(
    bad.errors.map((e: { path: string }) => e.path),
    ['id'],
  );
  const unknown = problemOf(
    (await client.callTool({ name: 'create_draft', arguments: { url: 'https://x.example.com', color: 'red' } })) as CallToolResult,
  );
  t.deepEqual(
    unknown.errors.map((e: { path: string }) => e.path),
    ['color'],
  );
  const tooMany = problemOf((await client.callTool({ name: 'search_listings', arguments: { per_page: 1000 } })) as CallToolResult);
  t.deepEqual(
    tooMany.errors.map((e: { path: string }) => e.path),
    ['per_page'],
  );
  const refused = problemOf((await client.callTool({ name: 'create_draft', arguments: { url: 'ftp://example.com' } })) as CallToolResult);
  t.is(refused.code, 'validation_failed');
  await client.close();
});

test("another owner's draft is not found through MCP, and nothing changes", async (t) => {
  const other = await env.user();
  const [draft] = await env.services
    .db('drafts')
    .insert({ owner_id: other.userId, site_id: 1, url: 'https://other.example/', status: 'ready', fields: '{}' })
    .returning('id');
  const client = await connect(MODERN, owner.key);
  const read = problemOf((await client.callTool({ name: 'get_draft', arguments: { id: draft.id } })) as CallToolResult);
  t.is(read.status, 404);
  const submit = problemOf((await client.callTool({ name: 'submit_draft', arguments: { id: draft.id } })) as CallToolResult);
  t.is(submit.code, 'not_found');
  t.is((await env.services.db('drafts').where({ id: draft.id }).first())!.status, 'ready');
  await client.close();
});

test('an idempotent tool replays with the same key and refuses another body under it', async (t) => {
  const owner = await env.user();
  const client = await connect(MODERN, owner.key);
  const args = { url: 'https://idempotent.example.com', idempotency_key: 'mcp-key-1' };
  const first = (await client.callTool({ name: 'create_draft', arguments: args })) as CallToolResult;
  t.falsy(first.isError, JSON.stringify(first));
  const again = (await client.callTool({ name: 'create_draft', arguments: args })) as CallToolResult;
  t.deepEqual(again.structuredContent, first.structuredContent);
  t.is(await countDrafts({ owner_id: owner.userId }), 1);
  const conflict = problemOf(
    (await client.callTool({
      name: 'create_draft',
      arguments: { url: 'https://other.example.com', idempotency_key: 'mcp-key-1' },
    })) as CallToolResult,
  );
  t.is(conflict.code, 'idempotency_conflict');
  const badKey = problemOf(
    (await client.callTool({ name: 'create_draft', arguments: { url: 'https://x.example.com', idempotency_key: 7 } })) as CallToolResult,
  );
  t.deepEqual(
    badKey.errors.map((e: { path: string }) => e.path),
    ['idempotency_key'],
  );
  t.is(badKey.code, 'invalid_idempotency_key', 'the same code as the REST header');
  const longKey = problemOf(
    (await client.callTool({
      name: 'create_draft',
      arguments: { url: 'https://x.example.com', idempotency_key: 'k'.repeat(256) },
    })) as CallToolResult,
  );
  t.is(longKey.code, 'invalid_idempotency_key');
  t.is(await countDrafts({ owner_id: owner.userId }), 1);
  await client.close();
});

test('Host and Origin are checked against DNS rebinding; allowed origins get CORS', async (t) => {
  const rebound = await rawCall(callList('search_listings'), { host: 'evil.example:80' });
  t.is(rebound.status, 403);
  t.is(rebound.body.code, 'host_not_allowed');
  const foreign = await rawCall(callList('search_listings'), { origin: 'https://evil.example' });
  t.is(foreign.status, 403);
  t.is(foreign.body.code, 'origin_not_allowed');
  const preflight = await request(env, 'OPTIONS', '/mcp', {
    headers: { origin: env.baseUrl, 'access-control-request-method': 'POST' },
  });
  t.is(preflight.status, 204);
  t.is(preflight.headers.get('access-control-allow-origin'), env.baseUrl);
  t.regex(preflight.headers.get('access-control-allow-headers') ?? '', /Mcp-Protocol-Version/);
  // The headers a page may read are on the actual response (a preflight's would be ignored).
  const allowed = await rawCall(callList('search_listings'), { origin: env.baseUrl });
  t.is(allowed.headers.get('access-control-allow-origin'), env.baseUrl);
  t.regex(allowed.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
  t.regex(allowed.headers.get('vary') ?? '', /Origin/);
});

test('the protected resource metadata names the resource, the authorization server and the scopes', async (t) => {
  for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
    const res = await request(env, 'GET', path);
    t.is(res.status, 200);
    t.like(res.body, { resource: `${env.baseUrl}/mcp`, authorization_servers: [env.baseUrl] });
    t.deepEqual(res.body.scopes_supported, [
      'account:read',
      'account:write',
      'listings:write',
      'orders:write',
      'webhooks:write',
      'comments:write',
    ]);
    t.is(res.headers.get('access-control-allow-origin'), '*');
  }
});

test('a body that is not JSON gets a JSON-RPC parse error, not a 500', async (t) => {
  const res = await rawCall('{not json');
  t.true(res.status >= 400 && res.status < 500, String(res.status));
});
