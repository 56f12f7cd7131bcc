/** One failing field of a request: a JSON path such as `items.0.weeks` and a message. */
export interface FieldError {
  path: string;
  message: string;
}

/**
 * The one error family of the service. Transports map it once: REST and web to
 * problem+json (RFC 9457), MCP to an `isError` result carrying the same problem object.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly errors: FieldError[] | undefined;
  /** Extra response headers (WWW-Authenticate, Retry-After). */
  readonly headers: Record<string, string>;
  /** Extra members of the problem object (RFC 9457 §3.2), e.g. a refusal `reason`. */
  readonly extensions: Record<string, unknown>;
  constructor(
    status: number,
    code: string,
    title: string,
    detail: string,
    extra: { errors?: FieldError[]; headers?: Record<string, string>; extensions?: Record<string, unknown> } = {},
  ) {
    super(detail);
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.title = title;
    this.errors = extra.errors;
    this.headers = extra.headers ?? {};
    this.extensions = extra.extensions ?? {};
  }
}

export const validationFailed = (errors: FieldError[], detail = 'The request has invalid fields.') =>
  new AppError(400, 'validation_failed', 'Invalid request', detail, { errors });

export const badRequest = (code: string, detail: string) => new AppError(400, code, 'Bad request', detail);

export const unauthorized = (detail: string, wwwAuthenticate: string) =>
  new AppError(401, 'unauthorized', 'Authentication required', detail, {
    headers: { 'WWW-Authenticate': wwwAuthenticate },
  });

/** `challenge` is the transport's Bearer challenge (realm or resource_metadata) the error extends. */
export const insufficientScope = (scope: string, challenge = 'Bearer') =>
  new AppError(403, 'insufficient_scope', 'Insufficient scope', `This operation needs the scope "${scope}".`, {
    headers: { 'WWW-Authenticate': `${challenge}, error="insufficient_scope", scope="${scope}"` },
  });

export const notFound = (what: string) => new AppError(404, 'not_found', 'Not found', `${what} was not found.`);

export const conflict = (code: string, detail: string) => new AppError(409, code, 'Conflict', detail);

export const unprocessable = (code: string, detail: string) => new AppError(422, code, 'Unprocessable request', detail);

export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  new AppError(429, 'rate_limited', 'Too many requests', detail, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

/** RFC 9457 problem details as sent on the wire. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldError[];
  request_id?: string;
  [extension: string]: unknown;
}

/** Maps any thrown value to a problem; 5xx details are hidden. */
export function toProblem(err: unknown, baseUrl: string, requestId?: string): Problem {
  const e =
    err instanceof AppError
      ? err
      : new AppError(500, 'internal_error', 'Internal error', 'Something went wrong on our side. Please retry later.');
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
