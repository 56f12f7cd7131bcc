import type { IncomingHttpHeaders } from 'node:http';
import {
  classifyInboundRequest,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  type CallToolResult,
  type RequestId,
} from '@modelcontextprotocol/server';

/**
 * Protocol revisions whose `tools/call` answer this module writes itself. Each is checked against
 * the SDK's own answer in test/mcp/direct-call.test.ts; a newer revision goes to the SDK until it is.
 */
const DIRECT_REVISIONS = new Set(['2026-07-28']);
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const CALL_PARAMS = new Set(['name', 'arguments', '_meta']);

/** A `tools/call` this endpoint may answer without the SDK's per-request server. */
export interface DirectCall {
  id: RequestId;
  name: string;
  arguments: Record<string, unknown> | undefined;
}

/**
 * Why this exists: the SDK serves every request with a fresh Server and transport, validates each
 * message and result with zod and builds a web Response that we copy into Koa, which made an MCP
 * `tools/call` cost more than three times its REST twin. A stateless 2026-07-28 `tools/call` needs
 * none of that: it is one request, one operation, one JSON answer. So a call of a known tool whose
 * message has exactly the JSON-RPC request shape, whose standard headers (MCP-Protocol-Version,
 * Mcp-Method, Mcp-Name) agree with the body and whose `_meta` envelope the SDK's own classifier
 * accepts is answered here. Anything else (other methods and revisions, unknown tools, extra
 * members such as `task`, encoded names, anything the SDK would refuse) returns undefined and goes
 * to createMcpHandler, which gives it its usual answer.
 */
export function directToolCall(headers: IncomingHttpHeaders, message: unknown, isTool: (name: string) => boolean): DirectCall | undefined {
  if (!isJsonContentType(headers['content-type'])) return undefined;
  const version = header(headers, 'mcp-protocol-version');
  const nameHeader = header(headers, 'mcp-name');
  if (
    version === undefined ||
    !DIRECT_REVISIONS.has(version) ||
    header(headers, 'mcp-method') !== 'tools/call' ||
    nameHeader === undefined
  ) {
    return undefined;
  }
  if (!hasOnly(message, REQUEST_KEYS)) return undefined;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== '2.0' || method !== 'tools/call' || !(typeof id === 'string' || Number.isSafeInteger(id))) return undefined;
  if (!hasOnly(params, CALL_PARAMS)) return undefined;
  const { name, arguments: args, _meta: meta } = params;
  // Mcp-Name must name the tool literally; base64-encoded names are left to the SDK to decode.
  if (typeof name !== 'string' || name !== nameHeader || !isTool(name)) return undefined;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  if (!isPlainObject(meta) || meta[PROTOCOL_VERSION_META_KEY] !== version || !envelopeAccepted(meta, version)) return undefined;
  return { id: id as RequestId, name, arguments: args };
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

/** The JSON-RPC answer, as the SDK writes it for this revision: the result marked complete, with the server's identity. */
export function directCallResponse(call: DirectCall, result: CallToolResult, serverInfo: { name: string; version: string }): string {
  const { structuredContent, ...rest } = result;
  const envelope = JSON.stringify({
    jsonrpc: '2.0',
    id: call.id,
    result: { ...rest, resultType: 'complete', _meta: { [SERVER_INFO_META_KEY]: serverInfo } },
  });
  const text = result.content[0];
  if (structuredContent === undefined || text?.type !== 'text') return envelope;
  // callTool's text block holds the JSON of structuredContent: splice that in (before the closing
  // braces of result and envelope) instead of serializing a large body a second time.
  return `${envelope.slice(0, -2)},"structuredContent":${text.text}}}`;
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
