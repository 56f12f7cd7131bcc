import type { Context, Next } from 'koa';
import type { Config } from '../config/config.ts';
import { forbidden } from '../errors/errors.ts';
import { mcpCors } from '../http/cors.ts';
import { hostGuard, LOOPBACK_NAMES } from '../http/host-guard.ts';

function allowedOrigins(config: Config): { any: boolean; origins: Set<string> } {
  const base = new URL(config.baseUrl);
  const origins = new Set([base.origin, ...config.mcp.allowedOrigins.filter((o) => o !== '*')]);
  if (LOOPBACK_NAMES.includes(base.hostname)) {
    for (const name of LOOPBACK_NAMES) origins.add(`${base.protocol}//${name}${base.port ? `:${base.port}` : ''}`);
  }
  return { any: config.mcp.allowedOrigins.includes('*'), origins };
}

/**
 * DNS-rebinding guard for /mcp: the Host must be ours and a browser Origin must be allowed.
 * Allowed browser origins get CORS headers, and preflights are answered here.
 */
export function mcpOriginGuard(config: Config) {
  const isOurHost = hostGuard(config);
  const origins = allowedOrigins(config);
  const cors = mcpCors();
  return async function checkHostAndOrigin(ctx: Context, next: Next) {
    if (!isOurHost(ctx.get('Host'))) {
      throw forbidden('host_not_allowed', `This server does not answer to the host "${ctx.get('Host')}".`);
    }
    const origin = ctx.get('Origin');
    if (origin) {
      if (!origins.any && !origins.origins.has(origin)) {
        throw forbidden('origin_not_allowed', `Requests from the origin "${origin}" are not allowed.`);
      }
    }
    const answer = async () => {
      if (ctx.method === 'OPTIONS') {
        ctx.status = 204;
        return;
      }
      await next();
    };
    // An allowed browser origin gets CORS (a preflight is answered by @koa/cors itself).
    if (origin) return cors(ctx as never, answer);
    await answer();
  };
}
