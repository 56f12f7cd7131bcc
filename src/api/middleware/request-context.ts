import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';

declare module 'koa' {
  interface DefaultState {
    requestId: string;
    log: Logger;
  }
}

const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** X-Request-Id (the caller's when well-formed, else a new one), a child logger and one access log line. */
export function requestContext(log: Logger) {
  return async function assignRequestId(ctx: Context, next: Next) {
    const incoming = ctx.get('X-Request-Id');
    const requestId = VALID_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = log.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      ctx.state.log.info(
        // Responses written by another app (oidc-provider) bypass Koa's status.
        { method: ctx.method, path: ctx.path, status: ctx.respond === false ? ctx.res.statusCode : ctx.status, ms: Math.round(performance.now() - started) },
        'request',
      );
    }
  };
}
