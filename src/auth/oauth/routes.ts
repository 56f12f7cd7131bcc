import type { Context, Next } from 'koa';
import type Provider from 'oidc-provider';

/** What oidc-provider answers: its endpoints under /oauth and the two discovery documents. */
const OAUTH_PATHS = /^\/(?:oauth\/.*|\.well-known\/(?:openid-configuration|oauth-authorization-server))$/;
const REGISTRATION = '/oauth/register';

/**
 * Hands OAuth requests to the provider's own Koa app, untouched (no body parser in front of it).
 * Dynamic registration gets the CORS that browser-based MCP clients need; the provider already
 * sends CORS on discovery, token, JWKS and revocation.
 */
export function oauthRoutes(provider: Provider) {
  const handle = provider.callback();
  return async function serveOAuth(ctx: Context, next: Next) {
    if (!OAUTH_PATHS.test(ctx.path)) return next();
    if (ctx.path === REGISTRATION && ctx.get('Origin')) {
      ctx.set({
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Methods': 'POST',
        'Access-Control-Allow-Headers': 'Content-Type, Authorization',
        'Access-Control-Max-Age': '600',
      });
      if (ctx.method === 'OPTIONS') {
        ctx.status = 204;
        return;
      }
    }
    ctx.respond = false;
    await handle(ctx.req, ctx.res);
  };
}
