/** One failing field of a request: a JSON path such as `items.0.weeks` and a message. */
export interface FieldError {
  path: string;
  message: string;
}

import { ERROR_CATALOGUE, type CodeOf, type ErrorCode } from './catalogue.ts';

export { ERROR_CATALOGUE, ERROR_CODES, type CodeOf, type ErrorCode, type ErrorEntry } from './catalogue.ts';

type Extra = { errors?: FieldError[]; headers?: Record<string, string>; extensions?: Record<string, unknown> };

/**
 * The one error family of the service. Transports map it once: REST and web to
 * problem+json (RFC 9457), MCP to an `isError` result carrying the same problem object.
 * It takes a catalogue code only, so a code always has the same status and title.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly title: string;
  readonly errors: FieldError[] | undefined;
  /** Extra response headers (WWW-Authenticate, Retry-After, Allow). */
  readonly headers: Record<string, string>;
  /** RFC 9457 extension members of the problem (e.g. a quota's `limit`). */
  readonly extensions: Record<string, unknown>;
  constructor(code: ErrorCode, detail: string, extra: Extra = {}) {
    super(detail);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.title = ERROR_CATALOGUE[code].title;
    this.errors = extra.errors;
    this.headers = extra.headers ?? {};
    this.extensions = extra.extensions ?? {};
  }
}

/** The error of a catalogue code: its status and title, this call's detail. */
export const appError = (code: ErrorCode, detail: string, extra: Extra = {}) => new AppError(code, detail, extra);

export const validationFailed = (errors: FieldError[], detail = 'The request has invalid fields.') =>
  appError('validation_failed', detail, { errors });

/** One bad field, with the same path and message in `errors` as a schema failure would give. */
export const invalidField = (path: string, message: string, detail = `${path}: ${message}`) =>
  validationFailed([{ path, message }], detail);

// The status-named factories take only codes of their status, so a throw site reads as what it is.
export const badRequest = (code: CodeOf<400>, detail: string) => appError(code, detail);

export const conflict = (code: CodeOf<409>, detail: string) => appError(code, detail);

export const unprocessable = (code: CodeOf<422>, detail: string) => appError(code, detail);

export const forbidden = (code: CodeOf<403>, detail: string) => appError(code, detail);

export const invalidJson = (detail = 'The request body is not valid JSON.') => appError('invalid_json', detail);

export const unauthorized = (detail: string, wwwAuthenticate: string) =>
  appError('unauthorized', detail, { headers: { 'WWW-Authenticate': wwwAuthenticate } });

/** `challenge` is the transport's Bearer challenge (realm or resource_metadata) the error extends. */
export const insufficientScope = (scope: string, challenge = 'Bearer') =>
  appError('insufficient_scope', `This operation needs the scope "${scope}".`, {
    headers: { 'WWW-Authenticate': `${challenge}, error="insufficient_scope", scope="${scope}"` },
  });

export const notFound = (what: string) => appError('not_found', `${what} was not found.`);

/**
 * No room left for what an order item needs (a week's paid launch slot, billboard days): each
 * refused item in `errors` with the next week or first date that has room, and that in `available`.
 */
export const soldOut = (errors: FieldError[], available: Record<string, unknown>[]) =>
  appError('sold_out', errors.map((e) => `${e.path}: ${e.message}`).join(' '), { errors, extensions: { available } });

/** A body over the operation's limit; `what` names it in the caller's terms. */
export const payloadTooLarge = (
  limitBytes: number,
  code: 'payload_too_large' | 'image_too_large' = 'payload_too_large',
  what = 'The request body',
) => appError(code, `${what} is larger than ${formatBytes(limitBytes)}.`);

export const unsupportedMediaType = (detail: string) => appError('unsupported_media_type', detail);

export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  appError('rate_limited', detail, { headers: { 'Retry-After': String(retryAfterSeconds) } });

export const serviceUnavailable = (detail: string, retryAfterSeconds: number) =>
  appError('workflow_unavailable', detail, { headers: { 'Retry-After': String(retryAfterSeconds) } });

/** Error codes of a database that is restarting or unreachable (not of a bad query). */
const DATABASE_DOWN_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
]);
// knex puts the statement before pg's message: `select … - Connection terminated unexpectedly`.
const DATABASE_DOWN_MESSAGES = /Connection terminated|Timeout acquiring a connection|Client has encountered a connection error/;

/**
 * Thrown values the caller can act on: an AppError as it is, and a database that is down for a
 * moment as 503 database_unavailable with Retry-After (a restart or failover is not our bug, and a
 * client that retries later will succeed); text the database cannot store as 400 bad_request;
 * null for everything else (a 500).
 */
export function knownError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  const e = err as { code?: unknown; message?: unknown } | null;
  const down =
    (typeof e?.code === 'string' && DATABASE_DOWN_CODES.has(e.code)) ||
    (typeof e?.message === 'string' && DATABASE_DOWN_MESSAGES.test(e.message));
  if (down) {
    return appError('database_unavailable', 'The database is unavailable for a moment. Please retry shortly.', {
      headers: { 'Retry-After': '5' },
    });
  }
  // Text PostgreSQL cannot store (a NUL byte that got past the edge): the request is at fault.
  if (typeof e?.code === 'string' && UNSTORABLE_TEXT_CODES.has(e.code)) {
    return appError('bad_request', 'The request contains a character that cannot be stored (a NUL byte); remove it and send it again.');
  }
  return null;
}

/** character_not_in_repertoire, untranslatable_character. */
const UNSTORABLE_TEXT_CODES = new Set(['22021', '22P05']);

/** 1048576 → "1 MB", 8388608 → "8 MB" (binary megabytes, as the limits are set). */
export function formatBytes(bytes: number): string {
  const mb = bytes / 1024 / 1024;
  return mb >= 1 ? `${Number(mb.toFixed(1))} MB` : `${Math.round(bytes / 1024)} KB`;
}

/** 405 with the `Allow` header RFC 9110 requires: the methods the resource does answer. */
export const methodNotAllowed = (method: string, allowed: readonly string[]) =>
  appError('method_not_allowed', `${method} is not allowed here; use ${allowed.join(', ')}.`, { headers: { Allow: allowed.join(', ') } });

/** RFC 9457 problem details as sent on the wire. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: FieldError[];
  request_id?: string;
  /** Extension members (RFC 9457 §3.2), e.g. `limit` and `window_seconds` of a quota. */
  [extension: string]: unknown;
}

/** Maps any thrown value to a problem; 5xx details are hidden. */
export function toProblem(err: unknown, baseUrl: string, requestId?: string): Problem {
  const e = knownError(err) ?? appError('internal_error', 'Something went wrong on our side. Please retry later.');
  const problem: Problem = {
    ...e.extensions,
    type: `${baseUrl}/problems/${e.code}`,
    title: e.title,
    status: e.status,
    detail: e.message,
    code: e.code,
  };
  if (e.errors) problem.errors = e.errors;
  if (requestId) problem.request_id = requestId;
  return problem;
}
