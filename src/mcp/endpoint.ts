import { Readable } from 'node:stream';
import { createMcpHandler, createRequestStateCodec, type AuthInfo, type RequestStateCodec } from '@modelcontextprotocol/server';
import type { Context, DefaultState, Middleware } from 'koa';
import compose from 'koa-compose';
import type { Principal, Scope } from '../auth/scopes.ts';
import { insufficientScope, methodNotAllowed, payloadTooLarge, unauthorized } from '../errors/errors.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan, tooDeep } from '../http/json-depth.ts';
import { readBody } from '../http/read-body.ts';
import { operationContext } from '../operations/context.ts';
import { bodyLimitOf, type Operation } from '../operations/operation.ts';
import type { Services } from '../services.ts';
import { bearerToken, principalFromHeader } from '../auth/bearer.ts';
import { calledTools, mcpOperation } from './call-labels.ts';
import { mcpOriginGuard } from './origin-guard.ts';
import { mcpChallenge, mcpResource } from './resource-metadata.ts';
import { directCallResponse, directToolCall } from './direct-call.ts';
import { createAnswerMemo } from './replayed-answers.ts';
import { callsToolThatHandsOver, legacySessionFor, legacyUrlElicitation, mayHandOver } from './person-pages.ts';
import { callTool, mcpServerFactory, mcpTools, type KeptResult, type McpCall } from './tools.ts';

// A tool call carries one operation's input: the largest body limit of the registry, plus room for the JSON-RPC envelope.
const ENVELOPE_BYTES = 64 * 1024;
// A tool's arguments sit two levels down (message → params → arguments): the same depth as a REST body.
const MAX_MESSAGE_DEPTH = MAX_JSON_DEPTH + 2;
const SERVER_INFO = { name: 'listing-directory', version: '0.1.0' };
/** Methods of Streamable HTTP (OPTIONS for CORS preflights); the same list the CORS headers name. */
const MCP_METHODS = ['GET', 'POST', 'DELETE', 'OPTIONS'];

/**
 * /mcp: Streamable HTTP, stateless, for protocol 2026-07-28 and the initialize-based 2025 versions,
 * so any api process behind a plain load balancer can answer any request.
 * Authentication happens here, before the SDK: a protected tool without a token gets HTTP 401 with
 * the resource-metadata challenge (the client starts sign-in), a token without the scope gets 403.
 * Then the fast paths (MCP_DIRECT_TOOL_CALLS): a kept SDK answer replayed (replayed-answers.ts) or
 * a plain tools/call answered here (direct-call.ts); everything else goes to the SDK.
 */
export function mcpEndpoint(services: Services, operations: readonly Operation[]): Middleware<DefaultState, Context> {
  const { config, log, metrics } = services;
  const tools = mcpTools(operations);
  const isTool = (name: string) => tools.byName.has(name);
  const handler = createMcpHandler(mcpServerFactory(tools, SERVER_INFO), {
    legacy: 'stateless',
    onerror: (err) => log.debug({ err }, 'mcp request rejected'),
  });
  const scopeOfTool = new Map(operations.flatMap((op) => (op.scope ? [[op.name, op.scope] as const] : [])));
  const challenge = mcpChallenge(config);
  const audience = mcpResource(config);
  const maxBytes = Math.max(...operations.map((op) => bodyLimitOf(op).bytes)) + ENVELOPE_BYTES;
  const tooLarge = () => payloadTooLarge(maxBytes, 'payload_too_large', 'The MCP message');
  const answers = createAnswerMemo();
  // Sealed tool results of 2026-07-28 calls that show a page to the person (tools.ts), with a key
  // every api process shares; bound to the credential that made the call.
  let requestStates: Promise<RequestStateCodec<KeptResult>> | undefined;
  const requestStateCodec = () =>
    (requestStates ??= services.secrets
      .get('mcp-request-state')
      .then((key) =>
        createRequestStateCodec<KeptResult>({ key, ttlSeconds: 3_600, bind: (c) => String(c.http?.authInfo?.clientId ?? 'anonymous') }),
      )
      .catch((err: unknown) => {
        requestStates = undefined;
        throw err;
      }));

  /** Labels the request by what it calls, then checks its credentials and the scopes of its tools. */
  async function authorize(ctx: Context, message: unknown): Promise<Principal | null> {
    for (const tool of calledTools(message, isTool)) metrics.mcpToolCalls.inc({ tool });
    ctx.state.operation = mcpOperation(message, isTool); // the request's log lines name it from here on
    const principal = await principalFromHeader(services.authenticate, ctx.get('Authorization'), audience, challenge);
    for (const scope of toolScopes(message, scopeOfTool)) {
      if (!principal) throw unauthorized(`This tool needs the scope "${scope}": sign in first.`, `${challenge}, scope="${scope}"`);
      if (!principal.scopes.includes(scope)) throw insufficientScope(scope, challenge);
    }
    return principal;
  }

  async function mcpCall(ctx: Context, principal: Principal | null): Promise<McpCall> {
    const { log, requestId } = ctx.state;
    return {
      challenge,
      operationContext: await operationContext(services, { log, requestId, host: ctx.host, principal, clientIp: ctx.ip }),
    };
  }

  return compose<Context>([
    mcpOriginGuard(config),
    async function refuseOtherMethods(ctx: Context, next) {
      // TRACE and the like cannot even be turned into a fetch Request: answer them here.
      if (!MCP_METHODS.includes(ctx.method)) throw methodNotAllowed(ctx.method, MCP_METHODS);
      await next();
    },
    async function serveMcp(ctx: Context) {
      const raw = ctx.method === 'POST' ? await readBody(ctx.req, maxBytes, tooLarge) : undefined;
      const message = parseJson(raw);
      const principal = await authorize(ctx, message);
      // A 2025-era client declaring URL elicitation gets a session id that says so (person-pages.ts).
      const session = legacySessionFor(message);
      if (session) ctx.set('Mcp-Session-Id', session);
      const fast = config.mcp.directToolCalls && ctx.method === 'POST';
      const replayable = fast ? answers.replayable(ctx.req.headers, message, raw) : undefined;
      const replayed = replayable && answers.replay(replayable);
      if (replayed) return sendAnswer(ctx, replayed, metrics.mcpAnswers.labels('replayed'));
      const call = await mcpCall(ctx, principal);
      const direct = fast ? directToolCall(ctx.req.headers, message, isTool) : undefined;
      if (direct && !mayHandOver(ctx.req.headers, direct.name, message)) {
        const result = await callTool(tools.byName.get(direct.name)!.op, direct.arguments, call);
        return sendAnswer(ctx, { status: 200, ...directCallResponse(direct, result, SERVER_INFO) }, metrics.mcpAnswers.labels('direct'));
      }
      metrics.mcpAnswers.inc({ path: 'sdk' });
      if (callsToolThatHandsOver(message)) {
        call.requestStates = await requestStateCodec();
        call.legacyUrlElicitation = legacyUrlElicitation(ctx.req.headers);
      }
      // A parsed body is handed over as such; the raw bytes only when they did not parse.
      const response = await handler.fetch(webRequest(ctx, config.baseUrl, message === undefined ? raw : undefined), {
        authInfo: authInfo(ctx, principal, call),
        ...(message === undefined ? {} : { parsedBody: message }),
      });
      if (!replayable) return sendResponse(ctx, response);
      // The SDK's answer to a replayable request is read whole (one event), to be kept if it may be replayed.
      const answer = { status: response.status, headers: headersOf(response), body: await response.text() };
      answers.remember(replayable, answer.status, answer.headers, answer.body);
      sendAnswer(ctx, answer);
    },
  ]);
}

/**
 * The parsed body, or undefined when absent or not JSON (the SDK then answers a JSON-RPC parse error).
 * A message nested too deep is a 400 before anyone parses or walks it.
 */
function parseJson(raw: Buffer | undefined): unknown {
  if (!raw?.length) return undefined;
  const text = raw.toString('utf8');
  if (nestsDeeperThan(text, MAX_MESSAGE_DEPTH)) throw tooDeep('The MCP message', MAX_MESSAGE_DEPTH);
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Scopes of the protected tools a message (or a 2025-03-26 batch) calls. */
function toolScopes(message: unknown, scopeOfTool: Map<string, Scope>): Scope[] {
  const messages = Array.isArray(message) ? message : [message];
  return messages.flatMap((m) => {
    const call = m as { method?: unknown; params?: { name?: unknown } } | null;
    if (call?.method !== 'tools/call' || typeof call.params?.name !== 'string') return [];
    const scope = scopeOfTool.get(call.params.name);
    return scope ? [scope] : [];
  });
}

function authInfo(ctx: Context, principal: Principal | null, call: McpCall): AuthInfo {
  const token = bearerToken(ctx.get('Authorization')) ?? '';
  return {
    token,
    clientId: principal?.credentialId ?? 'anonymous',
    scopes: [...(principal?.scopes ?? [])],
    extra: { call },
  };
}

function webRequest(ctx: Context, baseUrl: string, body: Buffer | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(new URL(ctx.url, baseUrl), { method: ctx.method, headers, body: body?.length ? new Uint8Array(body) : undefined });
}

/** The response's headers but its length (Koa sets that for the body it sends). */
function headersOf(response: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') headers[name] = value;
  });
  return headers;
}

/** An answer written here (a direct call, a replayed answer): the SDK's status, headers and bytes. */
function sendAnswer(
  ctx: Context,
  answer: { status: number; headers: Record<string, string>; body: string },
  counted?: { inc(): void },
): void {
  counted?.inc();
  ctx.status = answer.status;
  ctx.set(answer.headers);
  // A string is written to the socket as it is; an empty answer is a buffer, which keeps an explicit
  // 202 status without a media type (Koa would make an empty body 204, or call a string text/plain).
  ctx.body = answer.body && answer.headers['content-type'] ? answer.body : Buffer.from(answer.body);
}

async function sendResponse(ctx: Context, response: Response): Promise<void> {
  ctx.status = response.status;
  ctx.set(headersOf(response));
  const streaming = response.headers.get('content-type')?.startsWith('text/event-stream');
  if (streaming && response.body) {
    ctx.body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream);
  } else {
    // A buffer keeps an explicit 202/4xx status; Koa would turn a null body into 204.
    ctx.body = Buffer.from(await response.arrayBuffer());
  }
}
