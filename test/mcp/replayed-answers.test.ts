import test, { type ExecutionContext } from 'ava';
import { createAnswerMemo } from '../../src/mcp/replayed-answers.ts';
import { LEGACY_REVISIONS } from '../../src/mcp/revisions.ts';
import type { TestEnv } from '../helpers/env.ts';
import { answeredBy, assertSame, sendMcp, startTwins, type McpRequest } from '../helpers/mcp-twins.ts';

/**
 * The endpoint keeps the SDK's answers to initialize, server/discover, tools/list and ping and
 * replays them (src/mcp/replayed-answers.ts). Every request here goes to two identical apps, one
 * with the fast paths and one with MCP_DIRECT_TOOL_CALLS=false; the fast app gets it twice, with
 * two ids (the second answer is the replayed one), and all answers must be the same, byte for byte.
 */
const MODERN = '2026-07-28';
const ACCEPT = 'application/json, text/event-stream';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let twins: Awaited<ReturnType<typeof startTwins<{ key: string }>>>;

test.before(async () => {
  twins = await startTwins(import.meta.url, async (env: TestEnv) => ({ key: (await env.user()).key }));
});
test.after.always(async () => {
  await twins?.close();
});

/** A 2025-era request as a client sends it after the handshake (the negotiated version in the header). */
function legacy(version: string | undefined, method: string, params?: unknown, id: unknown = 1): McpRequest {
  return { ...notification(version, method, params), body: { jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) } };
}

function notification(version: string | undefined, method: string, params?: unknown): McpRequest {
  const body = { jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) };
  return { body, headers: { accept: ACCEPT, ...(version ? { 'mcp-protocol-version': version } : {}) } };
}

/** A 2026-07-28 request: the envelope in `_meta` and the standard headers. */
function modern(method: string, params: Record<string, unknown> = {}, id: unknown = 1): McpRequest {
  return {
    body: { jsonrpc: '2.0', id, method, params: { ...params, _meta: ENVELOPE } },
    headers: { accept: ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': method },
  };
}

/** The request with another id (a JSON-RPC request's answer echoes it); invalid ids are kept. */
function withId(req: McpRequest, id: unknown): McpRequest {
  const body = req.body as Record<string, unknown>;
  const valid = typeof body?.id === 'string' || Number.isSafeInteger(body?.id);
  return typeof body === 'object' && !Array.isArray(body) && valid ? { ...req, body: { ...body, id } } : req;
}

/**
 * Sends `req` to the SDK app once and to the fast app twice (the same id, then another), asserts
 * the same answers and returns how many of the fast app's two answers were replayed.
 */
async function sameTwice(t: ExecutionContext, req: McpRequest, what: string): Promise<{ status: number; body: string; replayed: number }> {
  const before = (await answeredBy(twins.fast.env)).replayed ?? 0;
  const first = assertSame(
    t,
    twins,
    await sendMcp(twins.fast.env, req, twins.fast.data.key),
    await sendMcp(twins.sdk.env, req, twins.sdk.data.key),
    what,
  );
  const again = withId(req, 'again-"2"');
  assertSame(
    t,
    twins,
    await sendMcp(twins.fast.env, again, twins.fast.data.key),
    await sendMcp(twins.sdk.env, again, twins.sdk.data.key),
    `${what} (again)`,
  );
  t.true(first.status < 500, what);
  return { status: first.status, body: first.body, replayed: ((await answeredBy(twins.fast.env)).replayed ?? 0) - before };
}

/** Runs each case and names the ones whose second answer was replayed. */
async function replayedOnes(t: ExecutionContext, cases: Record<string, McpRequest>): Promise<string[]> {
  const replayed: string[] = [];
  for (const [name, req] of Object.entries(cases)) if ((await sameTwice(t, req, name)).replayed) replayed.push(name);
  return replayed;
}

for (const version of LEGACY_REVISIONS) {
  test.serial(`${version}: initialize, notifications/initialized, tools/list and ping answer the same, replayed`, async (t) => {
    const initialize = legacy(undefined, 'initialize', {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    });
    const cases = {
      initialize,
      'notifications/initialized': notification(version, 'notifications/initialized'),
      'tools/list': legacy(version, 'tools/list'),
      'tools/list with empty params': legacy(version, 'tools/list', {}),
      'tools/list with a cursor': legacy(version, 'tools/list', { cursor: 'page-2' }),
      ping: legacy(version, 'ping'),
    };
    t.deepEqual(await replayedOnes(t, cases), Object.keys(cases));
    const answer = await sameTwice(t, initialize, 'initialize again');
    t.regex(answer.body, new RegExp(`^event: message\ndata: \\{"result":\\{"protocolVersion":"${version}"`));
    t.is(answer.replayed, 2, 'a kept answer serves every later id');
  });
}

test.serial('2026-07-28: server/discover and tools/list answer the same, replayed', async (t) => {
  const cases = {
    'server/discover': modern('server/discover'),
    'tools/list': modern('tools/list'),
    'tools/list with a cursor': modern('tools/list', { cursor: 'page-2' }),
  };
  t.deepEqual(await replayedOnes(t, cases), Object.keys(cases));
  const list = JSON.parse((await sameTwice(t, modern('tools/list'), 'tools/list again')).body);
  t.is(list.id, 1);
  t.true(list.result.tools.some((tool: { name: string }) => tool.name === 'search_listings'));
});

test.serial('errors come from the SDK every time, the same on both', async (t) => {
  const list = legacy('2025-06-18', 'tools/list');
  const cases: Record<string, McpRequest> = {
    'unknown method (2025)': legacy('2025-06-18', 'no/such/method'),
    'unknown method (2026-07-28)': modern('no/such/method'),
    'ping (2026-07-28 has none)': modern('ping'),
    'bad params: a numeric cursor (2025)': legacy('2025-06-18', 'tools/list', { cursor: 5 }),
    'bad params: a numeric cursor (2026-07-28)': modern('tools/list', { cursor: 5 }),
    'bad params: params not an object': legacy('2025-06-18', 'tools/list', 'all'),
    'initialize without params': legacy(undefined, 'initialize'),
    'initialize with a 2026-07-28 header': {
      ...legacy(MODERN, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } }),
    },
    'unsupported protocol version header': legacy('2023-01-01', 'tools/list'),
    'the 2026-07-28 header without the envelope': legacy(MODERN, 'tools/list'),
    'envelope and header name other versions': {
      ...modern('tools/list'),
      headers: { accept: ACCEPT, 'mcp-protocol-version': '2025-06-18', 'mcp-method': 'tools/list' },
    },
    'Mcp-Method names another method': {
      ...modern('tools/list'),
      headers: { accept: ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': 'ping' },
    },
    'accepts JSON only (2025)': { ...list, headers: { ...list.headers, accept: 'application/json' } },
    'not a JSON content type': { ...list, body: JSON.stringify(list.body), headers: { ...list.headers, 'content-type': 'text/plain' } },
    'fractional id': legacy('2025-06-18', 'tools/list', undefined, 1.5),
    'null id': legacy('2025-06-18', 'tools/list', undefined, null),
    'unsafe integer id': legacy('2025-06-18', 'tools/list', undefined, 2 ** 53),
    'an extra member': { ...list, body: { ...(list.body as object), extra: true } },
    'not JSON-RPC 2.0': { ...list, body: { ...(list.body as object), jsonrpc: '1.0' } },
    'malformed JSON': { ...list, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"' },
    'JSON but not an object': { ...list, body: '5' },
    'an empty batch': { ...list, body: [] },
    'a batch of tools/list and ping': { ...list, body: [list.body, { ...(list.body as object), id: 2, method: 'ping' }] },
    'a posted response': { ...list, body: { jsonrpc: '2.0', id: 1, result: {} } },
    'an empty body': { ...list, body: '' },
  };
  t.deepEqual(await replayedOnes(t, cases), []);
});

test.serial('sessions: stateless in every era, so a session id is not needed and GET/DELETE are refused alike', async (t) => {
  const list = legacy('2025-11-25', 'tools/list');
  const withSession = { ...list, headers: { ...list.headers, 'mcp-session-id': 'no-such-session' } };
  t.deepEqual(await replayedOnes(t, { 'a session id nobody issued': withSession }), ['a session id nobody issued']);
  for (const method of ['GET', 'DELETE']) {
    const req = { method, headers: { accept: ACCEPT, 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': 'no-such-session' } };
    const answer = await sameTwice(t, req, method);
    t.is(answer.status, 405, method);
  }
});

test.serial(
  'a message over the largest body limit (a photo upload, 8 MB + envelope) is refused before anything else, on both',
  async (t) => {
    const list = legacy('2025-06-18', 'tools/list', { cursor: 'x'.repeat(8_500_000) });
    const answer = await sameTwice(t, list, 'oversized');
    t.is(answer.status, 413);
    t.is(answer.replayed, 0);
  },
);

test.serial('a replayed answer still needs a valid token, an allowed origin and host', async (t) => {
  const list = legacy('2025-06-18', 'tools/list');
  t.is((await sameTwice(t, list, 'prime')).status, 200);
  const cases: Record<string, McpRequest> = {
    'a token nobody issued': { ...list, headers: { ...list.headers, authorization: 'Bearer ld_nosuchkey' } },
    'a malformed Authorization header': { ...list, headers: { ...list.headers, authorization: 'Basic abc' } },
    'a foreign origin': { ...list, headers: { ...list.headers, origin: 'https://evil.example' } },
    'a foreign host': { ...list, headers: { ...list.headers, host: 'evil.example' } },
  };
  for (const [name, req] of Object.entries(cases)) {
    const answer = await sameTwice(t, req, name);
    t.true(answer.status === 401 || answer.status === 403, name);
    t.is(answer.replayed, 0, name);
  }
  const signedIn = await sameTwice(t, { ...list, signedIn: true }, 'signed in');
  t.is(signedIn.status, 200);
  t.is(signedIn.replayed, 2, 'the answer does not depend on the caller');
});

test('the memo keeps plain successes only, keyed by the message without its id and the protocol headers', (t) => {
  const memo = createAnswerMemo();
  const headers = { 'content-type': 'application/json', accept: ACCEPT };
  const raw = (message: unknown) => Buffer.from(JSON.stringify(message));
  const ping = { jsonrpc: '2.0', id: 7, method: 'ping' };
  const key = memo.replayable(headers, ping, raw(ping))!;
  t.deepEqual(key.id, 7);
  t.is(memo.replayable(headers, { ...ping, method: 'tools/call' }, raw(ping)), undefined, 'not a replayable method');
  t.is(memo.replayable(headers, { ...ping, id: 1.5 }, raw(ping)), undefined);
  t.is(memo.replayable({ ...headers, 'content-type': 'text/plain' }, ping, raw(ping)), undefined);
  t.is(memo.replayable(headers, ping, Buffer.alloc(5000)), undefined, 'large messages are not kept');
  t.is(memo.replayable({ ...headers, accept: `${ACCEPT}, ${'x'.repeat(5000)}` }, ping, raw(ping)), undefined, 'nor large headers');
  const sse = { 'content-type': 'text/event-stream' };
  memo.remember(key, 200, sse, 'event: message\ndata: {"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"no"}}\n\n');
  t.is(memo.replay(key), undefined, 'errors are not kept');
  memo.remember(key, 200, sse, 'event: message\ndata: {"result":{},"jsonrpc":"2.0","id":8}\n\n');
  t.is(memo.replay(key), undefined, 'an answer to another id is not kept');
  memo.remember(key, 200, sse, 'event: message\ndata: {"result":{}, "jsonrpc":"2.0","id":7}\n\n');
  t.is(memo.replay(key), undefined, 'an answer that would not come back byte for byte is not kept');
  memo.remember(key, 200, sse, 'event: message\ndata: {"result":{"id":7},"jsonrpc":"2.0","id":7}\n\n');
  const other = memo.replayable(headers, { ...ping, id: 'x' }, raw(ping))!;
  t.is(other.key, key.key);
  t.deepEqual(memo.replay(other), {
    status: 200,
    headers: sse,
    body: 'event: message\ndata: {"result":{"id":7},"jsonrpc":"2.0","id":"x"}\n\n',
  });
  const versioned = memo.replayable({ ...headers, 'mcp-protocol-version': '2025-06-18' }, ping, raw(ping))!;
  t.not(versioned.key, key.key, 'the protocol headers are part of the key');
  t.is(memo.replay(versioned), undefined);
});
