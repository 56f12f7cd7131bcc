import test from 'ava';
import { directToolCall } from '../../src/mcp/direct-call.ts';
import { request, startTestEnv, type HttpResult, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';

/**
 * The endpoint answers plain 2026-07-28 tools/call requests itself (src/mcp/direct-call.ts) and
 * leaves every other request to the SDK. Here every request goes to two identical apps, one with
 * direct calls and one with MCP_DIRECT_TOOL_CALLS=false, and the answers must be the same.
 */
const VERSION = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Side {
  env: TestEnv;
  key: string;
}
let direct: Side;
let sdk: Side;
let listingId: number;

async function side(env: TestEnv): Promise<Side> {
  // Same inserts in the same order: both databases hold the same rows with the same ids.
  const { key, userId } = await env.user();
  listingId = await insertLiveListing(env.services.db, {
    name: 'Orbital Analytics',
    headline: 'Analytics for rocket launches',
    ownerId: userId,
  });
  await insertLiveListing(env.services.db, { name: 'Payroll Analytics', headline: 'Analytics for payroll teams', votes: 3 });
  return { env, key };
}

test.before(async () => {
  [direct, sdk] = await Promise.all([
    startTestEnv(import.meta.url).then(side),
    startTestEnv(import.meta.url, { MCP_DIRECT_TOOL_CALLS: 'false' }).then(side),
  ]);
});
test.after.always(async () => {
  await Promise.all([direct?.env.close(), sdk?.env.close()]);
});

interface Call {
  body: unknown;
  headers?: Record<string, string>;
  signedIn?: boolean;
}

function toolCall(
  name: string,
  args: unknown,
  extra: { id?: unknown; params?: Record<string, unknown>; meta?: Record<string, unknown> } = {},
): Call {
  return {
    body: {
      jsonrpc: '2.0',
      id: extra.id ?? 1,
      method: 'tools/call',
      params: { name, arguments: args, _meta: extra.meta ?? ENVELOPE, ...extra.params },
    },
    headers: { 'mcp-method': 'tools/call', 'mcp-name': name },
  };
}

async function send(s: Side, call: Call): Promise<HttpResult> {
  return request(s.env, 'POST', '/mcp', {
    body: call.body,
    key: call.signedIn ? s.key : undefined,
    headers: {
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      // The same request id on both sides, so problem objects match.
      'x-request-id': 'direct-call-test',
      ...call.headers,
    },
  });
}

/** Status, media type and the JSON body with keys sorted and each app's origin and timestamps masked. */
function comparable(s: Side, result: HttpResult) {
  const text = JSON.stringify(result.body ?? null)
    .replaceAll(s.env.baseUrl, 'BASE')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, 'TIME');
  return { status: result.status, type: result.headers.get('content-type')?.split(';')[0], body: sortKeys(JSON.parse(text)) };
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, sortKeys(v)]),
  );
}

async function sameAnswer(t: import('ava').ExecutionContext, call: Call) {
  const a = await send(direct, call);
  const b = await send(sdk, call);
  t.deepEqual(comparable(direct, a), comparable(sdk, b));
  return comparable(direct, a);
}

test.serial('a public tool answers the same with and without the direct path', async (t) => {
  const answer = await sameAnswer(t, toolCall('search_listings', { q: 'analytics' }));
  const result = (answer.body as any).result;
  t.is(answer.status, 200);
  t.is(answer.type, 'application/json');
  t.is(result.resultType, 'complete');
  t.deepEqual(result._meta, { 'io.modelcontextprotocol/serverInfo': { name: 'listing-directory', version: '0.1.0' } });
  t.deepEqual(result.structuredContent.items.map((i: any) => i.name).sort(), ['Orbital Analytics', 'Payroll Analytics']);
  t.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  // A string id and text that needs escaping survive the hand-built envelope.
  const quoted = await sameAnswer(t, toolCall('search_listings', { q: 'rocket "launch" \\ \u2028 ü' }, { id: 'call-"7"' }));
  t.is((quoted.body as any).id, 'call-"7"');
});

test.serial('signed-in and idempotent tools answer the same', async (t) => {
  await sameAnswer(t, { ...toolCall('list_my_listings', {}), signedIn: true });
  const edit = {
    ...toolCall('update_my_listing', { listing_id: listingId, fields: { headline: 'Rocket analytics' }, idempotency_key: 'edit-1' }),
    signedIn: true,
  };
  const first = await sameAnswer(t, edit);
  t.falsy((first.body as any).result.isError, JSON.stringify(first.body));
  // A replay comes from the stored (jsonb) result: the same values, keys perhaps in another order.
  const replay = await sameAnswer(t, edit);
  t.deepEqual(
    sortKeys(JSON.parse((replay.body as any).result.content[0].text)),
    sortKeys(JSON.parse((first.body as any).result.content[0].text)),
  );
  t.deepEqual((replay.body as any).result.structuredContent, (first.body as any).result.structuredContent);
  const conflict = await sameAnswer(t, {
    ...toolCall('update_my_listing', { listing_id: listingId, fields: { headline: 'Other' }, idempotency_key: 'edit-1' }),
    signedIn: true,
  });
  t.true((conflict.body as any).result.isError);
});

test.serial('tool errors (bad arguments, unknown fields, not found) answer the same', async (t) => {
  for (const args of [{ q: 5 }, { bogus: 1 }, { per_page: 0 }]) {
    const answer = await sameAnswer(t, toolCall('search_listings', args));
    t.true((answer.body as any).result.isError, JSON.stringify(args));
  }
  const missing = await sameAnswer(t, toolCall('get_listing', { slug: 'no-such-listing' }));
  t.is(JSON.parse((missing.body as any).result.content[0].text).status, 404);
  await sameAnswer(t, {
    ...toolCall('update_my_listing', { listing_id: listingId, fields: { headline: 'x'.repeat(71) } }),
    signedIn: true,
  });
  await sameAnswer(t, toolCall('search_listings', { idempotency_key: '' }));
});

test.serial('odd and malformed requests (most of them left to the SDK) get the same answer on both', async (t) => {
  const cases: Record<string, Call> = {
    'unknown tool': toolCall('no_such_tool', {}),
    'Mcp-Name disagrees with the body': {
      ...toolCall('search_listings', {}),
      headers: { 'mcp-method': 'tools/call', 'mcp-name': 'get_listing' },
    },
    'Mcp-Name missing': { ...toolCall('search_listings', {}), headers: { 'mcp-method': 'tools/call' } },
    'Mcp-Name base64-encoded': {
      ...toolCall('search_listings', {}),
      headers: { 'mcp-method': 'tools/call', 'mcp-name': `=?base64?${Buffer.from('search_listings').toString('base64')}?=` },
    },
    'Mcp-Method missing': { ...toolCall('search_listings', {}), headers: { 'mcp-name': 'search_listings' } },
    'arguments not an object': toolCall('search_listings', ['analytics']),
    'extra params (task)': toolCall('search_listings', {}, { params: { task: { ttl: 1000 } } }),
    'envelope without clientInfo': toolCall(
      'search_listings',
      {},
      { meta: { 'io.modelcontextprotocol/protocolVersion': VERSION, 'io.modelcontextprotocol/clientCapabilities': {} } },
    ),
    'envelope without clientCapabilities': toolCall(
      'search_listings',
      {},
      { meta: { 'io.modelcontextprotocol/protocolVersion': VERSION } },
    ),
    'envelope with malformed capabilities': toolCall(
      'search_listings',
      {},
      { meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': 5 } },
    ),
    'the same malformed envelope again': toolCall(
      'search_listings',
      {},
      { meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': 5 } },
    ),
    'envelope with a bad log level': toolCall('search_listings', {}, { meta: { ...ENVELOPE, 'io.modelcontextprotocol/logLevel': 'loud' } }),
    'envelope with capabilities and a log level': toolCall(
      'search_listings',
      { q: 'payroll' },
      {
        meta: {
          ...ENVELOPE,
          'io.modelcontextprotocol/clientCapabilities': { roots: { listChanged: true }, elicitation: {} },
          'io.modelcontextprotocol/logLevel': 'info',
        },
      },
    ),
    'fractional id': toolCall('search_listings', {}, { id: 1.5 }),
    'extra member on the message': {
      ...toolCall('search_listings', {}),
      body: { ...(toolCall('search_listings', {}).body as object), extra: true },
    },
    'unsupported revision': {
      ...toolCall('search_listings', {}, { meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } }),
      headers: { 'mcp-method': 'tools/call', 'mcp-name': 'search_listings', 'mcp-protocol-version': '2099-01-01' },
    },
    'header names another revision than the body': {
      ...toolCall('search_listings', {}),
      headers: { 'mcp-method': 'tools/call', 'mcp-name': 'search_listings', 'mcp-protocol-version': '2025-06-18' },
    },
    'not JSON-RPC 2.0': {
      ...toolCall('search_listings', {}),
      body: { jsonrpc: '1.0', id: 1, method: 'tools/call', params: { name: 'search_listings', _meta: ENVELOPE } },
    },
    'null id': toolCall('search_listings', {}, { id: null }),
    'not JSON content': {
      body: 'q=analytics',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'mcp-method': 'tools/call', 'mcp-name': 'search_listings' },
    },
    'tools/list': {
      body: { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: ENVELOPE } },
      headers: { 'mcp-method': 'tools/list' },
    },
  };
  for (const [name, call] of Object.entries(cases)) {
    const a = await send(direct, call);
    const b = await send(sdk, call);
    t.deepEqual(comparable(direct, a), comparable(sdk, b), name);
    t.true(a.status < 500, name);
  }
});

test('only well-formed 2026-07-28 tools/call requests for a known tool take the direct path', (t) => {
  const isTool = (name: string) => name === 'search_listings';
  const headers = {
    'content-type': 'application/json',
    'mcp-protocol-version': VERSION,
    'mcp-method': 'tools/call',
    'mcp-name': 'search_listings',
  };
  const call = toolCall('search_listings', { q: 'x' }).body as any;
  t.deepEqual(directToolCall(headers, call, isTool), { id: 1, name: 'search_listings', arguments: { q: 'x' } });
  t.deepEqual(directToolCall(headers, { ...call, params: { ...call.params, arguments: undefined } }, isTool)?.arguments, undefined);
  t.is(directToolCall({ ...headers, 'content-type': 'text/plain' }, call, isTool), undefined);
  t.is(directToolCall({ ...headers, 'mcp-name': 'other' }, call, isTool), undefined);
  t.is(
    directToolCall(headers, { ...call, params: { ...call.params, name: 'other' } }, () => true),
    undefined,
  );
  t.is(
    directToolCall({ ...headers, 'mcp-name': 'get_listing' }, { ...call, params: { ...call.params, name: 'get_listing' } }, isTool),
    undefined,
  );
  t.is(directToolCall(headers, { ...call, params: { ...call.params, task: {} } }, isTool), undefined);
  t.is(directToolCall(headers, { ...call, params: { ...call.params, arguments: 'x' } }, isTool), undefined);
  t.is(directToolCall(headers, [call], isTool), undefined);
  t.is(directToolCall(headers, { ...call, method: 'tools/list' }, isTool), undefined);
  t.is(directToolCall({ ...headers, 'mcp-protocol-version': '2025-11-25' }, call, isTool), undefined);
  t.is(directToolCall(headers, { ...call, id: 1.5 }, isTool), undefined);
  t.is(directToolCall(headers, { ...call, extra: 1 }, isTool), undefined);
  const badCapabilities = { ...call, params: { ...call.params, _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': [] } } };
  t.is(directToolCall(headers, badCapabilities, isTool), undefined);
  t.is(directToolCall(headers, badCapabilities, isTool), undefined, 'a remembered verdict is the same verdict');
  const { _meta, ...withoutEnvelope } = call.params;
  t.truthy(_meta);
  t.is(directToolCall(headers, { ...call, params: withoutEnvelope }, isTool), undefined);
});
