import type { ExecutionContext } from 'ava';
import { request, startTestEnv, type HttpResult, type TestEnv } from './env.ts';

/**
 * The same app twice, for differential tests of the MCP fast paths (src/mcp/direct-call.ts,
 * src/mcp/replayed-answers.ts): `fast` as deployed, `sdk` with MCP_DIRECT_TOOL_CALLS=false, so
 * the SDK answers every request there. `setup` runs on both in the same order, so both databases
 * hold the same rows with the same ids.
 */
export async function startTwins<T>(testFile: string, setup: (env: TestEnv) => Promise<T>) {
  const [fast, sdk] = await Promise.all([
    startTestEnv(testFile).then(async (env) => ({ env, data: await setup(env) })),
    startTestEnv(testFile, { MCP_DIRECT_TOOL_CALLS: 'false' }).then(async (env) => ({ env, data: await setup(env) })),
  ]);
  return { fast, sdk, close: () => Promise.all([fast.env.close(), sdk.env.close()]) };
}

/** One HTTP request to /mcp; `key` is the side's API key when the request is signed in. */
export interface McpRequest {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  signedIn?: boolean;
}

/** Sends `req` to one side; the same request id on both sides, so problem objects match. */
export function sendMcp(env: TestEnv, req: McpRequest, key?: string): Promise<HttpResult> {
  return request(env, req.method ?? 'POST', '/mcp', {
    body: req.body,
    key: req.signedIn ? key : undefined,
    headers: { 'x-request-id': 'mcp-twins', ...req.headers },
  });
}

/** Headers that differ between any two answers (framing, time). */
const VOLATILE = new Set(['date', 'content-length', 'transfer-encoding', 'keep-alive']);
const TIMESTAMP = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;

/** Status, headers and the exact body, with the app's own origin and timestamps masked. */
export function comparable(env: TestEnv, result: HttpResult) {
  const mask = (text: string) => text.replaceAll(env.baseUrl, 'BASE').replace(TIMESTAMP, 'TIME');
  const headers = Object.fromEntries(
    [...result.headers].filter(([name]) => !VOLATILE.has(name)).map(([name, value]) => [name, mask(value)]),
  );
  return { status: result.status, headers, body: mask(result.text) };
}

/** How many MCP requests each path answered so far (`sdk`, `direct`, `replayed`). */
export async function answeredBy(env: TestEnv): Promise<Record<string, number>> {
  const { values } = await env.services.metrics.mcpAnswers.get();
  return Object.fromEntries(values.map((v) => [String(v.labels.path), v.value]));
}

/** Asserts both sides answer alike, byte for byte; returns the fast side's answer. */
export function assertSame(
  t: ExecutionContext,
  twins: { fast: { env: TestEnv }; sdk: { env: TestEnv } },
  fast: HttpResult,
  sdk: HttpResult,
  what = '',
) {
  const answer = comparable(twins.fast.env, fast);
  t.deepEqual(answer, comparable(twins.sdk.env, sdk), what);
  return answer;
}
