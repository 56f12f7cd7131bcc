import {
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type McpRequestContext,
  type RequestStateCodec,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { markShared, isShared, jsonText } from '../cache/shared-json.ts';
import { toProblem } from '../errors/errors.ts';
import { IDEMPOTENCY_KEY_SCHEMA, idempotencyKey } from '../operations/idempotency-key.ts';
import type { OperationContext, Operation } from '../operations/operation.ts';
import { invoke } from '../operations/invoke.ts';
import { operationSchemas, type JsonSchema } from '../operations/json-schema.ts';
import { elicitationId, envelopeUrlElicitation, personPage, type PersonPage } from './person-pages.ts';

/** Per-request state the endpoint hands to the tools through `authInfo.extra`. */
export interface McpCall {
  operationContext: OperationContext;
  /** WWW-Authenticate challenge of the MCP resource (used if a 401 happens inside a tool). */
  challenge: string;
  /** Seals a tool's result while the client shows a page to its person (2026-07-28); absent on the direct path. */
  requestStates?: RequestStateCodec<KeptResult>;
  /** A 2025-era client that declared URL elicitation (person-pages.ts). */
  legacyUrlElicitation?: boolean;
}

/** What a 2026-07-28 call keeps in its requestState while the person is shown a page: the tool's result. */
export interface KeptResult {
  tool: string;
  result: CallToolResult;
}

/** A tool as `tools/list` shows it. */
function toolListing(op: Operation): Tool {
  const { input, output } = operationSchemas(op);
  const inputSchema: JsonSchema = op.idempotent
    ? { ...input, properties: { ...input.properties, idempotency_key: IDEMPOTENCY_KEY_SCHEMA } }
    : input;
  const scopeNote = op.scope ? `Requires the scope ${op.scope}.` : 'Public: no sign-in needed.';
  return {
    name: op.name,
    title: op.summary,
    description: [op.summary, op.description, scopeNote].filter(Boolean).join('\n\n'),
    // The operation validates its own arguments (the same zod schema as REST), so a bad argument
    // gets the same problem object on both transports.
    inputSchema: { ...inputSchema, type: 'object' } as Tool['inputSchema'],
    // MCP output schemas must describe objects; other shapes are sent as text only.
    ...(output.type === 'object' ? { outputSchema: output as Tool['outputSchema'] } : {}),
    annotations: {
      title: op.summary,
      readOnlyHint: op.readOnly,
      destructiveHint: op.destructive ?? false,
      idempotentHint: op.idempotent || op.readOnly,
      openWorldHint: false,
    },
  };
}

/** The tools of the registry, built once per process: listings for tools/list and each tool by name. */
export interface McpTools {
  listings: Tool[];
  byName: Map<string, { op: Operation; listing: Tool }>;
}

export function mcpTools(operations: readonly Operation[]): McpTools {
  const listings = operations.map(toolListing);
  return { listings, byName: new Map(operations.map((op, i) => [op.name, { op, listing: listings[i]! }])) };
}

/**
 * The factory createMcpHandler calls once per HTTP request: a fresh low-level server bound to that
 * request's caller and site, with two handlers over tool listings built once per process (a
 * high-level McpServer would register and convert every tool again on every request).
 * The tools/list answer must stay the same for every caller and site: the endpoint keeps the
 * SDK's answer and replays it (replayed-answers.ts).
 */
export function mcpServerFactory(tools: McpTools, serverInfo: { name: string; version: string }) {
  return function createServer(request: McpRequestContext): Server {
    const call = request.authInfo?.extra?.call as McpCall | undefined;
    if (!call) throw new Error('MCP request without call context');
    const server = new Server(serverInfo, {
      capabilities: { tools: {} },
      ...(call.requestStates ? { requestState: { verify: call.requestStates.verify } } : {}),
    });
    server.setRequestHandler('tools/list', () => ({ tools: tools.listings }));
    server.setRequestHandler('tools/call', async (req, ctx) => {
      const tool = tools.byName.get(req.params.name);
      if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${req.params.name} not found`);
      // The retry after the client showed the page: the result of the first round, not a second call.
      const kept = ctx.mcpReq.requestState<KeptResult>();
      if (kept !== undefined) {
        if (kept.tool !== tool.op.name)
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'The requestState belongs to another tool');
        return server.projectCallToolResult(kept.result, tool.listing.outputSchema);
      }
      const result = await callTool(tool.op, req.params.arguments, call);
      const page = personPage(tool.op.name, result, call.operationContext.config.baseUrl);
      if (page && call.requestStates && envelopeUrlElicitation(ctx.mcpReq.envelope)) {
        return inputRequired({
          inputRequests: { [page.key]: inputRequired.elicitUrl({ message: page.message, url: page.url }) },
          requestState: await call.requestStates.mint({ tool: tool.op.name, result }, ctx),
        });
      }
      if (page && call.legacyUrlElicitation) showPage(ctx, page, call);
      // Older protocol versions get the result in the shape they know.
      return server.projectCallToolResult(result, tool.listing.outputSchema);
    });
    return server;
  };
}

/**
 * 2025 era: the elicitation request goes out on the call's event stream ahead of the result.
 * Served statelessly, the client's answer comes back as a request of its own that this server
 * never sees; the result does not depend on it (the person accepts or declines opening a page).
 */
function showPage(ctx: ServerContext, page: PersonPage, call: McpCall): void {
  ctx.mcpReq
    .send({ method: 'elicitation/create', params: { mode: 'url', url: page.url, message: page.message, elicitationId: elicitationId() } })
    .catch((err: unknown) => call.operationContext.log.debug({ err }, 'URL elicitation left unanswered'));
}

/** A shared answer's (search page's) text block is shared too, so its escaped JSON is made once (direct-call.ts). */
const sharedTextContent = new WeakMap<object, CallToolResult['content']>();

/** The result's one text block: the JSON of the body. */
function textContent(body: unknown): CallToolResult['content'] {
  if (!isShared(body)) return [{ type: 'text', text: JSON.stringify(body) }];
  let content = sharedTextContent.get(body as object);
  if (!content) {
    content = markShared([{ type: 'text' as const, text: jsonText(body) }]);
    sharedTextContent.set(body as object, content);
  }
  return content;
}

/**
 * Runs the operation behind a tool; a failure is the REST problem object in an isError result.
 * An object body is both structuredContent and, for clients that read text, its JSON in the first content block.
 */
export async function callTool(op: Operation, args: unknown, call: McpCall): Promise<CallToolResult> {
  const { idempotency_key: key, ...input } = (args ?? {}) as Record<string, unknown>;
  const ctx = call.operationContext;
  try {
    const idempotency = idempotencyKey(key, 'idempotency_key');
    const result = await invoke(op, input, ctx, { idempotencyKey: idempotency, challenge: call.challenge });
    const body = result.body;
    const content = textContent(body);
    return body !== null && typeof body === 'object' && !Array.isArray(body)
      ? { content, structuredContent: body as Record<string, unknown> }
      : { content };
  } catch (err) {
    const problem = toProblem(err, ctx.config.baseUrl, ctx.requestId);
    if (problem.status >= 500) ctx.log.error({ err, tool: op.name }, 'tool failed');
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(problem) }] };
  }
}
