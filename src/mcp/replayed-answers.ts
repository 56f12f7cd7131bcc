import type { IncomingHttpHeaders } from 'node:http';
import { isJsonContentType, type RequestId } from '@modelcontextprotocol/server';

/**
 * Methods whose answer is a function of the request alone (method, params, protocol headers):
 * never of the caller, the site or the data. The server factory keeps them so (tools/list lists
 * every tool to everyone, straight from the operation registry).
 */
const REPLAYABLE = new Set(['initialize', 'notifications/initialized', 'ping', 'server/discover', 'tools/list']);
/** The request headers the SDK reads when it answers those methods. */
const KEY_HEADERS = ['content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-session-id'];
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
/** Larger messages (with their headers) are not remembered: clients send small handshakes, and keys are held in memory. */
const MAX_KEY_BYTES = 4 * 1024;
const MAX_ANSWERS = 1_000;
const SSE_PREFIX = 'event: message\ndata: ';
const SSE_SUFFIX = '\n\n';
/** Stands for the request id while an answer is kept as a template. */
const ID_MARK = JSON.stringify('\u0000mcp-request-id\u0000');

/** A request whose answer may be replayed: its key, and the id the answer must echo (none for a notification). */
export interface Replayable {
  key: string;
  id: RequestId | undefined;
}

/** A remembered answer of the SDK, with the request id cut out of its body. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  /** The body before and after the id; one piece for a notification's (empty) answer. */
  pieces: string[];
}

/** An answer to send: status, headers and exact body. */
export interface ReplayedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Why this exists: initialize, server/discover and tools/list cost the SDK a fresh server and
 * transport, zod validation and (for tools/list) serializing every tool's schemas, for an answer
 * that never changes. So the first time a request is seen, the SDK answers it as always and its
 * answer is kept, by everything the SDK reads to make it (the message without its id and the
 * protocol headers); the same request again gets that answer with its own id. The SDK stays the
 * only writer of these answers, so they cannot drift from it; errors are never kept, so every
 * refusal still comes from the SDK.
 */
export function createAnswerMemo() {
  const answers = new Map<string, Answer>();
  // Many keys share one answer (every client's tools/list): its pieces are kept once.
  const templates = new Map<string, string[]>();

  return {
    /** The memo key of a POST this memo may answer, or undefined when the SDK must see it. */
    replayable(headers: IncomingHttpHeaders, message: unknown, raw: Buffer | undefined): Replayable | undefined {
      if (!raw || raw.length > MAX_KEY_BYTES || !isJsonContentType(headers['content-type']) || !isRequestShape(message)) return undefined;
      const { id, ...rest } = message;
      if (!REPLAYABLE.has(rest.method as string)) return undefined;
      // Only ids the SDK's schema takes (strings, safe integers); a notification has none.
      if (id === undefined ? 'id' in message : !(typeof id === 'string' || Number.isSafeInteger(id))) return undefined;
      const key = JSON.stringify([KEY_HEADERS.map((name) => headers[name] ?? null), rest]);
      return key.length > MAX_KEY_BYTES ? undefined : { key, id: id as RequestId | undefined };
    },

    /** The kept answer to this request, with its id. */
    replay(request: Replayable): ReplayedAnswer | undefined {
      const answer = answers.get(request.key);
      if (!answer) return undefined;
      const body = request.id === undefined ? answer.pieces[0]! : answer.pieces.join(JSON.stringify(request.id));
      return { status: answer.status, headers: answer.headers, body };
    },

    /** Keeps the SDK's answer to this request when it is a success that replays byte for byte. */
    remember(request: Replayable, status: number, headers: Record<string, string>, body: string): void {
      const template = templateOf(request.id, status, headers, body);
      if (!template) return;
      if (answers.size >= MAX_ANSWERS) {
        answers.clear();
        templates.clear();
      }
      const joined = template.join('\u0000');
      const pieces = templates.get(joined) ?? template;
      templates.set(joined, pieces);
      answers.set(request.key, { status, headers, pieces });
    },
  };
}

export type AnswerMemo = ReturnType<typeof createAnswerMemo>;

function isRequestShape(message: unknown): message is Record<string, unknown> {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return false;
  for (const key in message) if (!REQUEST_KEYS.has(key)) return false;
  return (message as { jsonrpc?: unknown }).jsonrpc === '2.0';
}

/**
 * The answer's body split around the request id, or undefined when it is not a plain success
 * (an error, another status, more than one event) or would not come back byte for byte.
 */
function templateOf(id: RequestId | undefined, status: number, headers: Record<string, string>, body: string): string[] | undefined {
  if (id === undefined) return status === 202 && body === '' ? [body] : undefined;
  if (status !== 200) return undefined;
  const type = headers['content-type'];
  const sse = type === 'text/event-stream';
  if (!sse && type !== 'application/json') return undefined;
  if (sse && !(body.startsWith(SSE_PREFIX) && body.endsWith(SSE_SUFFIX))) return undefined;
  const json = sse ? body.slice(SSE_PREFIX.length, -SSE_SUFFIX.length) : body;
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (message?.id !== id || !('result' in message) || 'error' in message) return undefined;
  const pieces = JSON.stringify({ ...message, id: JSON.parse(ID_MARK) }).split(ID_MARK);
  if (pieces.length !== 2) return undefined;
  const [before, after] = pieces as [string, string];
  const framed = sse ? [`${SSE_PREFIX}${before}`, `${after}${SSE_SUFFIX}`] : [before, after];
  return framed.join(JSON.stringify(id)) === body ? framed : undefined;
}
