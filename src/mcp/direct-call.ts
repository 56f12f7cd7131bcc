import type { IncomingHttpHeaders } from 'node:http';
import {
  classifyInboundRequest,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  type CallToolResult,
  type RequestId,
} from '@modelcontextprotocol/server';
import { jsonText } from '../cache/shared-json.ts';
import { LEGACY_REVISIONS } from './revisions.ts';

/**
 * Modern protocol revisions whose `tools/call` answer this module writes itself. Each is checked
 * against the SDK's own answer in test/mcp/direct-call.test.ts; a newer revision goes to the SDK until it is.
 */
const DIRECT_REVISIONS = new Set(['2026-07-28']);
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const CALL_PARAMS = new Set(['name', 'arguments', '_meta']);
const LEGACY_CALL_PARAMS = new Set(['name', 'arguments']);

/** A `tools/call` this endpoint may answer without the SDK's per-request server. */
export interface DirectCall {
  id: RequestId;
  name: string;
  arguments: Record<string, unknown> | undefined;
  /** 2026-07-28 answers plain JSON with the result envelope; the 2025 revisions one SSE event. */
  era: 'modern' | 'legacy';
}

/**
 * Why this exists: the SDK serves every request with a fresh Server and transport, validates each
 * message and result with zod and builds a web Response that we copy into Koa, which made an MCP
 * `tools/call` cost more than three times its REST twin. A stateless `tools/call` needs none of
 * that: it is one request, one operation, one answer. So a call of a known tool whose message has
 * exactly the JSON-RPC request shape is answered here when
 * - 2026-07-28: its standard headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name) agree with the
 *   body and the SDK's own classifier accepts its `_meta` envelope;
 * - 2025 revisions: it carries no `_meta` and no 2026 headers, names a served revision (or none)
 *   in MCP-Protocol-Version and accepts both JSON and SSE answers.
 * Anything else (other methods and revisions, unknown tools, extra members such as `task`, encoded
 * names, anything the SDK would refuse) returns undefined and goes to createMcpHandler, which gives
 * it its usual answer.
 */
export function directToolCall(headers: IncomingHttpHeaders, message: unknown, isTool: (name: string) => boolean): DirectCall | undefined {
  if (!isJsonContentType(headers['content-type']) || !hasOnly(message, REQUEST_KEYS)) return undefined;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== '2.0' || method !== 'tools/call' || !(typeof id === 'string' || Number.isSafeInteger(id))) return undefined;
  if (!hasOnly(params, CALL_PARAMS)) return undefined;
  const { name, arguments: args } = params;
  if (typeof name !== 'string' || !isTool(name) || !(args === undefined || isPlainObject(args))) return undefined;
  // A "__proto__" member would be a prototype, not an argument, once the SDK's zod has copied it.
  if (args && Object.hasOwn(args, '__proto__')) return undefined;
  const era = params._meta === undefined ? legacyCall(headers, params) : modernCall(headers, params);
  return era ? { id: id as RequestId, name, arguments: args, era } : undefined;
}

function modernCall(headers: IncomingHttpHeaders, params: Record<string, unknown>): 'modern' | undefined {
  const version = header(headers, 'mcp-protocol-version');
  if (version === undefined || !DIRECT_REVISIONS.has(version) || header(headers, 'mcp-method') !== 'tools/call') return undefined;
  // Mcp-Name must name the tool literally; base64-encoded names are left to the SDK to decode.
  if (header(headers, 'mcp-name') !== params.name) return undefined;
  const meta = params._meta;
  return isPlainObject(meta) && meta[PROTOCOL_VERSION_META_KEY] === version && envelopeAccepted(meta, version) ? 'modern' : undefined;
}

/**
 * A 2025-era call: the SDK routes a request without an envelope claim (no `_meta` at all) and
 * without a 2026 MCP-Protocol-Version header to its stateless legacy serving ("no-claim").
 */
function legacyCall(headers: IncomingHttpHeaders, params: Record<string, unknown>): 'legacy' | undefined {
  if (!hasOnly(params, LEGACY_CALL_PARAMS) || headers['mcp-method'] !== undefined || headers['mcp-name'] !== undefined) return undefined;
  // The SDK's transport refuses (406) a POST that does not accept both answers, and an unknown version (400).
  const accept = headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  const version = headers['mcp-protocol-version'];
  return version === undefined || LEGACY_REVISIONS.includes(version as string) ? 'legacy' : undefined;
}

/**
 * Whether the SDK's classifier takes this `_meta` for a valid 2026-07-28 request envelope. Its
 * zod validation costs more than the rest of the call's routing, and a client sends the same
 * envelope with every call, so verdicts are kept by the envelope's JSON (a bounded number of them:
 * made-up envelopes only cost a classification each).
 */
function envelopeAccepted(meta: Record<string, unknown>, version: string): boolean {
  const key = JSON.stringify(meta);
  let accepted = envelopeVerdicts.get(key);
  if (accepted === undefined) {
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: version,
      mcpMethodHeader: 'tools/call',
      body: { jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'envelope-check', _meta: meta } },
    });
    accepted = route.kind === 'modern' && route.messageKind === 'request' && route.classification.revision === version;
    if (envelopeVerdicts.size >= MAX_ENVELOPE_VERDICTS) envelopeVerdicts.clear();
    envelopeVerdicts.set(key, accepted);
  }
  return accepted;
}
const envelopeVerdicts = new Map<string, boolean>();
const MAX_ENVELOPE_VERDICTS = 1_000;

/** What the endpoint sends: the media type and headers the SDK's answer has, and its exact body. */
export interface DirectAnswer {
  headers: Record<string, string>;
  body: string;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
/** The SDK's headers of a 2025-era answer: one SSE event on a stream the proxy must not buffer. */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/**
 * The JSON-RPC answer, byte for byte as the SDK writes it for the call's era: `result` first with
 * the members in the order of the SDK's result schema (content, structuredContent, isError), then
 * for 2026-07-28 the result marked complete with the server's identity; 2025 revisions get it as
 * one SSE `message` event.
 */
export function directCallResponse(call: DirectCall, result: CallToolResult, serverInfo: { name: string; version: string }): DirectAnswer {
  const text = result.content[0];
  // callTool's text block holds the JSON of structuredContent: splice that in instead of
  // serializing a large body a second time.
  const structured =
    result.structuredContent === undefined
      ? ''
      : `,"structuredContent":${text?.type === 'text' ? text.text : JSON.stringify(result.structuredContent)}`;
  const modern = call.era === 'modern' ? `,"resultType":"complete","_meta":${JSON.stringify({ [SERVER_INFO_META_KEY]: serverInfo })}` : '';
  const sse = call.era === 'legacy';
  const body = `${sse ? 'event: message\ndata: ' : ''}{"result":{"content":${jsonText(result.content)}${structured}${result.isError ? ',"isError":true' : ''}${modern}},"jsonrpc":"2.0","id":${JSON.stringify(call.id)}}${sse ? '\n\n' : ''}`;
  return { headers: sse ? SSE_HEADERS : JSON_HEADERS, body };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value.trim() : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A plain object whose keys are all among `keys`. */
function hasOnly(value: unknown, keys: Set<string>): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  for (const key in value) if (!keys.has(key)) return false;
  return true;
}
