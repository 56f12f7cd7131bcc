import type { Context, Next } from 'koa';
import type { Config } from '../config.ts';
import { forbidden } from '../errors.ts';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/** Hosts a request may name: BASE_URL's, its loopback aliases when it is loopback, and configured extras. */
function allowedHosts(config: Config): Set<string> {
  const base = new URL(config.baseUrl);
  const hosts = new Set([base.host.toLowerCase(), ...config.mcp.allowedHosts.map((h) => h.toLowerCase())]);
  if (LOOPBACK.includes(base.hostname)) {
    for (const name of LOOPBACK) hosts.add(base.port ? `${name}:${base.port}` : name);
  }
  return hosts;
}

function allowedOrigins(config: Config): { any: boolean; origins: Set<string> } {
  const base = new URL(config.baseUrl);
  const origins = new Set([base.origin, ...config.mcp.allowedOrigins.filter((o) => o !== '*')]);
  if (LOOPBACK.includes(base.hostname)) {
    for (const name of LOOPBACK) origins.add(`${base.protocol}//${name}${base.port ? `:${base.port}` : ''}`);
  }
  return { any: config.mcp.allowedOrigins.includes('*'), origins };
}

const CORS_HEADERS = {
  'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
  'Access-Control-Allow-Headers':
    'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, Last-Event-ID',
  'Access-Control-Expose-Headers': 'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version, X-Request-Id',
  'Access-Control-Max-Age': '600',
};

/**
 * DNS-rebinding guard for /mcp: the Host must be ours and a browser Origin must be allowed.
 * Allowed browser origins get CORS headers, and preflights are answered here.
 */
export function mcpOriginGuard(config: Config) {
  const hosts = allowedHosts(config);
  const origins = allowedOrigins(config);
  return async function checkHostAndOrigin(ctx: Context, next: Next) {
    if (!hosts.has(ctx.get('Host').toLowerCase())) {
      throw forbidden('host_not_allowed', `This server does not answer to the host "${ctx.get('Host')}".`);
    }
    const origin = ctx.get('Origin');
    if (origin) {
      if (!origins.any && !origins.origins.has(origin)) {
        throw forbidden('origin_not_allowed', `Requests from the origin "${origin}" are not allowed.`);
      }
      ctx.set({ 'Access-Control-Allow-Origin': origin, Vary: 'Origin', ...CORS_HEADERS });
    }
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    await next();
  };
}
