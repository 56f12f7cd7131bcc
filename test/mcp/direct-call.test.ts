import test from 'ava';
import { directCallResponse, directToolCall } from '../../src/mcp/direct-call.ts';
import { LEGACY_REVISIONS } from '../../src/mcp/revisions.ts';
import type { TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { answeredBy, assertSame, sendMcp, startTwins, type McpRequest } from '../helpers/mcp-twins.ts';

/**
 * The endpoint answers plain tools/call requests itself (src/mcp/direct-call.ts) and leaves every
 * other request to the SDK. Here every request goes to two identical apps, one with direct calls
 * and one with MCP_DIRECT_TOOL_CALLS=false, and the answers must be the same, byte for byte.
 */
const VERSION = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let twins: Awaited<ReturnType<typeof startTwins<{ key: string; listingId: number }>>>;
let listingId: number;

async function setup(env: TestEnv) {
  // Same inserts in the same order: both databases hold the same rows with the same ids.
  const { key, userId } = await env.user();
  const id = await insertLiveListing(env.services.db, {
    name: 'Orbital Analytics',
    headline: 'Analytics for rocket launches',
    ownerId: userId,
  });
  await insertLiveListing(env.services.db, { name: 'Payroll Analytics', headline: 'Analytics for payroll teams', votes: 3 });
  return { key, listingId: id };
}

test.before(async () => {
  twins = await startTwins(import.meta.url, setup);
  listingId = twins.fast.data.listingId;
});
test.after.always(async () => {
  await twins?.close();
});

/** A request; `legacy` ones get no 2026-07-28 MCP-Protocol-Version header by default. */
type Call = McpRequest & { legacy?: boolean };

function toolCall(
  name: string,
  args: unknown,
  extra: { id?: unknown; params?: Record<string, unknown>; meta?: Record<string, unknown> } = {},
): Call {
  return {
    body: {
      jsonrpc: '2.0',
      id: 'id' in extra ? extra.id : 1,
      method: 'tools/call',
      params: { name, arguments: args, _meta: extra.meta ?? ENVELOPE, ...extra.params },
    },
    headers: { 'mcp-method': 'tools/call', 'mcp-name': name },
  };
}

/** The same call as a 2025-era client sends it: no envelope, no Mcp-Method/Mcp-Name, the negotiated version in the header. */
function legacyCall(version: string, name: string, args: unknown, id: unknown = 1): Call {
  return {
    body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
    headers: { 'mcp-protocol-version': version },
    legacy: true,
  };
}

const ACCEPT = 'application/json, text/event-stream';
const BASE_HEADERS = { accept: ACCEPT, 'mcp-protocol-version': VERSION };

/** Sends the call to both apps and asserts the same answer; returns it with its JSON-RPC message parsed. */
async function sameAnswer(t: import('ava').ExecutionContext, call: Call, what = '') {
  const request = { ...call, headers: { ...(call.legacy ? { accept: ACCEPT } : BASE_HEADERS), ...call.headers } };
  const fast = await sendMcp(twins.fast.env, request, twins.fast.data.key);
  const sdk = await sendMcp(twins.sdk.env, request, twins.sdk.data.key);
  const answer = assertSame(t, twins, fast, sdk, what);
  const json = answer.body.startsWith('event: message\ndata: ') ? answer.body.slice(21) : answer.body;
  let body: any;
  try {
    body = JSON.parse(json);
  } catch {
    body = json;
  }
  return { ...answer, type: answer.headers['content-type']?.split(';')[0], body };
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

test.serial('a public tool answers the same with and without the direct path', async (t) => {
  const answer = await sameAnswer(t, toolCall('search_listings', { q: 'analytics' }));
  const result = (answer.body as any).result;
  t.is(answer.status, 200);
  t.is(answer.type, 'application/json');
  t.is(result.resultType, 'complete');
  t.deepEqual(result._meta, { 'io.modelcontextprotocol/serverInfo': { name: 'listing-directory', version: '0.1.0' } });
  t.deepEqual(result.structuredContent.items.map((i: any) => i.name).sort(), ['Orbital Analytics', 'Payroll Analytics']);
  t.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  // Asked again, the page is the remembered one, its JSON written once and shared: the same bytes.
  const again = await sameAnswer(t, toolCall('search_listings', { q: 'analytics' }));
  t.deepEqual(again.body, answer.body);
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
  t.deepEqual(await directOnes(t, cases), ['envelope without clientInfo', 'envelope with capabilities and a log level']);
});

/** Sends each case to both apps (same answers, none a 500) and names the ones the fast app answered directly. */
async function directOnes(t: import('ava').ExecutionContext, cases: Record<string, Call>): Promise<string[]> {
  const direct: string[] = [];
  for (const [name, call] of Object.entries(cases)) {
    const before = (await answeredBy(twins.fast.env)).direct ?? 0;
    const answer = await sameAnswer(t, call, name);
    t.true(answer.status < 500, name);
    if ((await answeredBy(twins.fast.env)).direct !== before) direct.push(name);
  }
  return direct;
}

for (const version of LEGACY_REVISIONS) {
  test.serial(`${version}: tools/call answers the same, one SSE event, with and without the direct path`, async (t) => {
    const before = await answeredBy(twins.fast.env);
    const answer = await sameAnswer(t, legacyCall(version, 'search_listings', { q: 'analytics' }));
    t.is(answer.status, 200);
    t.is(answer.type, 'text/event-stream');
    t.true(answer.body.result.structuredContent.items.length === 2);
    t.is(answer.body.result.resultType, undefined);
    await sameAnswer(t, legacyCall(version, 'search_listings', { q: 'rocket "launch" \\ \u2028 ü' }, 'call-"7"'));
    await sameAnswer(t, { ...legacyCall(version, 'list_my_listings', {}), signedIn: true });
    const bad = await sameAnswer(t, legacyCall(version, 'search_listings', { per_page: 0 }));
    t.true(bad.body.result.isError);
    await sameAnswer(t, legacyCall(version, 'get_listing', { slug: 'no-such-listing' }));
    t.is((await answeredBy(twins.fast.env)).direct, before.direct! + 5);
  });
}

test.serial('2025-era calls the direct path leaves to the SDK get the same answer on both', async (t) => {
  const plain = legacyCall('2025-06-18', 'search_listings', {});
  const cases: Record<string, Call> = {
    'no protocol version header': { ...plain, headers: {} },
    'unknown tool': legacyCall('2025-06-18', 'no_such_tool', {}),
    'unsupported version header': { ...plain, headers: { 'mcp-protocol-version': '2023-01-01' } },
    'accepts JSON only': { ...plain, headers: { ...plain.headers, accept: 'application/json' } },
    'accepts SSE only': { ...plain, headers: { ...plain.headers, accept: 'text/event-stream' } },
    'Mcp-Method on a 2025 call': { ...plain, headers: { ...plain.headers, 'mcp-method': 'tools/call' } },
    'a _meta without an envelope claim': {
      ...plain,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_listings', _meta: { progressToken: 5 } } },
    },
    'arguments not an object': legacyCall('2025-06-18', 'search_listings', 'analytics'),
    'a __proto__ argument': {
      ...plain,
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_listings","arguments":{"__proto__":{"q":"x"}}}}`,
    },
    'a batch of two calls': { ...plain, body: [plain.body, { ...(plain.body as object), id: 2 }] },
    'fractional id': legacyCall('2025-06-18', 'search_listings', {}, 1.5),
    'unsafe integer id': legacyCall('2025-06-18', 'search_listings', {}, 2 ** 53),
    'protected tool without a token': legacyCall('2025-06-18', 'list_my_listings', {}),
    'a session id nobody issued (stateless: ignored)': { ...plain, headers: { ...plain.headers, 'mcp-session-id': 'no-such-session' } },
  };
  t.deepEqual(await directOnes(t, cases), ['no protocol version header', 'a session id nobody issued (stateless: ignored)']);
});

test('only well-formed 2026-07-28 tools/call requests for a known tool take the direct path (modern era)', (t) => {
  const isTool = (name: string) => name === 'search_listings';
  const headers = {
    'content-type': 'application/json',
    'mcp-protocol-version': VERSION,
    'mcp-method': 'tools/call',
    'mcp-name': 'search_listings',
  };
  const call = toolCall('search_listings', { q: 'x' }).body as any;
  t.deepEqual(directToolCall(headers, call, isTool), { id: 1, name: 'search_listings', arguments: { q: 'x' }, era: 'modern' });
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

test('2025-era tools/call requests take the direct path only without 2026 headers and _meta', (t) => {
  const isTool = (name: string) => name === 'search_listings';
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  };
  const call = legacyCall('2025-11-25', 'search_listings', { q: 'x' }).body as any;
  t.deepEqual(directToolCall(headers, call, isTool), { id: 1, name: 'search_listings', arguments: { q: 'x' }, era: 'legacy' });
  t.is(directToolCall({ ...headers, 'mcp-protocol-version': undefined }, call, isTool)?.era, 'legacy');
  t.is(directToolCall({ ...headers, 'mcp-protocol-version': VERSION }, call, isTool), undefined);
  t.is(directToolCall({ ...headers, 'mcp-protocol-version': '2025-01-01' }, call, isTool), undefined);
  t.is(directToolCall({ ...headers, accept: 'application/json' }, call, isTool), undefined);
  t.is(directToolCall({ ...headers, 'mcp-name': 'search_listings' }, call, isTool), undefined);
  t.is(directToolCall(headers, { ...call, params: { ...call.params, _meta: {} } }, isTool), undefined);
  t.is(directToolCall(headers, { ...call, params: { ...call.params, arguments: JSON.parse('{"__proto__":{}}') } }, isTool), undefined);
});

test('the answer is written in the SDK order: result first, content before structuredContent and isError', (t) => {
  const info = { name: 'n', version: '1' };
  const ok = { content: [{ type: 'text' as const, text: '{"a":1}' }], structuredContent: { a: 1 } };
  const failed = { isError: true, content: [{ type: 'text' as const, text: '{"status":400}' }] };
  const modern = { id: 'x', name: 't', arguments: undefined, era: 'modern' as const };
  t.is(
    directCallResponse(modern, ok, info).body,
    '{"result":{"content":[{"type":"text","text":"{\\"a\\":1}"}],"structuredContent":{"a":1},"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"n","version":"1"}}},"jsonrpc":"2.0","id":"x"}',
  );
  const legacy = directCallResponse({ ...modern, id: 3, era: 'legacy' }, failed, info);
  t.is(
    legacy.body,
    'event: message\ndata: {"result":{"content":[{"type":"text","text":"{\\"status\\":400}"}],"isError":true},"jsonrpc":"2.0","id":3}\n\n',
  );
  t.is(legacy.headers['content-type'], 'text/event-stream');
});
