import type { Context, Next } from 'koa';
import { AppError, knownError, toProblem, type ErrorCode } from '../../errors/errors.ts';

/** The single place errors become responses: problem+json, 5xx details hidden and logged. */
export function problemErrors(baseUrl: string) {
  return async function renderProblem(ctx: Context, next: Next) {
    try {
      await next();
    } catch (err) {
      const appError = asAppError(err);
      if (!appError) ctx.state.log.error({ err }, 'unhandled error');
      const problem = toProblem(appError ?? err, baseUrl, ctx.state.requestId);
      for (const [name, value] of Object.entries(appError?.headers ?? {})) ctx.set(name, value);
      ctx.status = problem.status;
      ctx.type = 'application/problem+json';
      ctx.body = problem;
    }
  };
}

/**
 * Koa and its middleware throw http-errors (with `status` and `expose`): each 4xx becomes its
 * catalogue code, any other 4xx the 400 `bad_request` (the catalogue has one status per code).
 */
function asAppError(err: unknown): AppError | null {
  const known = knownError(err);
  if (known) return known;
  const e = err as { status?: number; expose?: boolean; message?: string };
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) {
    return new AppError(HTTP_CODES[e.status] ?? 'bad_request', e.message ?? 'Bad request');
  }
  return null;
}

const HTTP_CODES: Record<number, ErrorCode> = {
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};
