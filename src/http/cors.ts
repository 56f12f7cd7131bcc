import koaCors from '@koa/cors';
import type { Context, Middleware, Next } from 'koa';

/**
 * THE CORS of the app, on @koa/cors: every cross-origin policy is one of these, never headers set
 * by hand. @koa/cors answers a preflight (OPTIONS with Access-Control-Request-Method) itself with
 * 204, sets Vary: Origin, and keeps its headers on an error response (a 429 stays readable).
 */

/** Anyone may read it (badges, protected resource metadata): `Access-Control-Allow-Origin: *`. */
export function publicCors(): Middleware {
  return koaCors({ origin: '*' });
}

/**
 * OAuth dynamic client registration from browser-based MCP clients: any origin may POST its
 * registration; only requests that carry an Origin get CORS.
 */
export function registrationCors(): Middleware {
  return koaCors({
    origin: (ctx: Context) => (ctx.get('Origin') ? '*' : ''),
    allowMethods: 'POST',
    allowHeaders: 'Content-Type, Authorization',
    maxAge: 600,
  });
}

/** The MCP endpoint: the allowed origin echoed back (the caller has checked it), its headers readable. */
export function mcpCors(): Middleware {
  return koaCors({
    origin: (ctx: Context) => ctx.get('Origin'),
    allowMethods: 'GET, POST, DELETE, OPTIONS',
    allowHeaders: 'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, Last-Event-ID',
    exposeHeaders: 'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version, X-Request-Id',
    maxAge: 600,
  });
}

/** Runs `handler` under a CORS policy (for routes that are one function, not a chain). */
export function withCors(cors: Middleware, handler: (ctx: Context) => unknown): (ctx: Context) => Promise<void> {
  return (ctx) => cors(ctx as never, (async () => void (await handler(ctx))) as Next) as Promise<void>;
}
