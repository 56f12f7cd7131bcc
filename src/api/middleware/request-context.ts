import { randomUUID } from 'node:crypto';
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
 * X-Request-Id (the caller's when well-formed, else a new one), a child logger, one access log
 * line and the request's duration in `http_request_duration_seconds`.
 */
export function requestContext(log: Logger, metrics?: Metrics) {
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
      const ms = performance.now() - started;
      // Responses written by another app (oidc-provider) bypass Koa's status.
      const status = ctx.respond === false ? ctx.res.statusCode : ctx.status;
      const transport = areaOf(ctx.path);
      const operation = ctx.state.operation ?? transport;
      ctx.state.log.info({ operation, method: ctx.method, path: ctx.path, status, ms: Math.round(ms) }, 'request');
      metrics?.httpDuration.observe({ operation, transport, status: String(status) }, ms / 1000);
    }
  };
}

/** Where a request went (the `transport` label; also the operation of requests no operation claimed: paths would make unbounded series). */
export function areaOf(path: string): string {
  if (path.startsWith('/api/')) return 'rest';
  if (path === '/mcp') return 'mcp';
  if (path.startsWith('/oauth/') || path.startsWith('/.well-known/')) return 'oauth';
  if (path === '/healthz' || path === '/readyz') return 'health';
  return 'web';
}
