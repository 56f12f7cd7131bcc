import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import type { Metrics } from '../../metrics/registry.ts';

declare module 'koa' {
  interface DefaultState {
    requestId: string;
    log: Logger;
    /** The operation (REST) or tool (MCP) the request ran; set by the router that knows it. */
    operation?: string;
  }
}

const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * X-Request-Id (the caller's when well-formed, else a new one), the request's logger, one access log
 * line and the request's duration in `http_request_duration_seconds`.
 */
export function requestContext(log: Logger, metrics?: Metrics) {
  return async function assignRequestId(ctx: Context, next: Next) {
    const incoming = ctx.get('X-Request-Id');
    const requestId = VALID_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    lazyRequestLog(ctx.state, log);
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      const ms = performance.now() - started;
      // Responses written by another app (oidc-provider) bypass Koa's status.
      const status = ctx.respond === false ? ctx.res.statusCode : ctx.status;
      const transport = areaOf(ctx.path);
      const operation = ctx.state.operation ?? transport;
      log.info({ requestId, operation, method: ctx.method, path: ctx.path, status, ms: Math.round(ms) }, 'request');
      metrics?.httpDuration.observe({ operation, transport, status: String(status) }, ms / 1000);
    }
  };
}

/**
 * `state.log`, the request's logger, is made on first use (most requests log nothing but the access
 * line, and a pino child costs more than the rest of a cached read), and made again once the
 * router names the operation, so every line carries both the request id and the operation.
 */
function lazyRequestLog(state: Koa.DefaultState, log: Logger): void {
  let made: Logger | undefined;
  let madeFor: string | undefined;
  Object.defineProperty(state, 'log', {
    configurable: true,
    enumerable: true,
    get() {
      if (!made || madeFor !== state.operation) {
        madeFor = state.operation;
        made = log.child(madeFor ? { requestId: state.requestId, operation: madeFor } : { requestId: state.requestId });
      }
      return made;
    },
  });
}

/** Where a request went (the `transport` label; also the operation of requests no operation claimed: paths would make unbounded series). */
export function areaOf(path: string): string {
  if (path.startsWith('/api/')) return 'rest';
  if (path === '/mcp') return 'mcp';
  if (path.startsWith('/oauth/') || path.startsWith('/.well-known/')) return 'oauth';
  if (path === '/healthz' || path === '/readyz') return 'health';
  return 'web';
}
