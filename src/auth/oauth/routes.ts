import type { Context } from 'koa';
import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/knex.ts';
import { registrationCors } from '../../http/cors.ts';
import type { RouteScope } from '../../http/router.ts';
import { SCOPES } from '../scopes.ts';
import type { LazyOAuthServer, OAuthServer } from './lazy-provider.ts';
import { limitRegistrations } from './registration-limit.ts';

/** The two discovery documents oidc-provider answers besides its endpoints under /oauth. */
const DISCOVERY = ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server'];
const REGISTRATION = '/oauth/register';
const AUTHORIZATION = '/oauth/authorize';

/**
 * Hands OAuth requests to the provider's own Koa app, untouched (no body parser in front of it)
 * but for the Host, which is BASE_URL's. Dynamic registration gets the CORS that browser-based
 * MCP clients need (the provider already sends CORS on discovery, token, JWKS and revocation)
 * and a per-address limit.
 */
export function oauthRoutes(router: RouteScope, oauth: LazyOAuthServer, config: Config, db: Db): void {
  let handle: ReturnType<OAuthServer['provider']['callback']> | undefined;
  const host = new URL(config.baseUrl).host;
  const cors = registrationCors();
  const toProvider = async (ctx: Context) => {
    handle ??= (await oauth()).provider.callback();
    ctx.respond = false;
    await handle(ctx.req, ctx.res);
  };
  const register = async (ctx: Context) => {
    // A browser's OPTIONS without Access-Control-Request-Method (not a preflight @koa/cors answers).
    if (ctx.method === 'OPTIONS' && ctx.get('Origin')) {
      ctx.status = 204;
      return;
    }
    if (ctx.method === 'POST') await limitRegistrations(db, config.oauth.registrationLimit, ctx.ip);
    await toProvider(ctx);
  };
  router.add('ALL', '/oauth/*', async function serveOAuth(ctx) {
    pinHost(ctx, host);
    if (ctx.path === REGISTRATION) return cors(ctx as never, () => register(ctx));
    if (ctx.path === AUTHORIZATION && ctx.method === 'GET') askDefaultScopes(ctx);
    await toProvider(ctx);
  });
  for (const path of DISCOVERY) {
    router.add('ALL', path, async function serveDiscovery(ctx) {
      pinHost(ctx, host);
      ctx.res.setHeader('Cache-Control', 'public, max-age=300');
      await toProvider(ctx);
    });
  }
}

/**
 * The provider builds its endpoint URLs (discovery documents, redirects) from the request's host:
 * it must be ours, never what a client sent (`Host: evil.example` would otherwise be published
 * as the token endpoint, and cached). The scheme still follows the trusted proxies (TRUST_PROXY_HOPS).
 */
function pinHost(ctx: Context, host: string): void {
  ctx.req.headers.host = host;
  delete ctx.req.headers['x-forwarded-host'];
}

/**
 * An authorization request without `scope` asks for every scope of the MCP resource (what its
 * metadata lists as scopes_supported); the consent page shows them all and the person decides.
 * oidc-provider itself would end a scope-less request in access_denied after consent.
 */
function askDefaultScopes(ctx: Context): void {
  const url = new URL(ctx.req.url ?? '/', 'http://placeholder');
  if (url.searchParams.get('scope')) return;
  url.searchParams.set('scope', SCOPES.join(' '));
  ctx.req.url = `${url.pathname}${url.search}`;
}
