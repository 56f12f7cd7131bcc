import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { addressRange, isIpLiteral, stripBrackets } from '../../domain/crawl/address-guard.ts';
import { pageSecurityHeaders } from '../../web/security-headers.ts';

interface OAuthErrorOut {
  error: string;
  error_description?: string;
}

/**
 * Errors of an authorization request before the person has consented are shown on our page, not
 * sent to the client's redirect URI: anyone can register a client with any https redirect URI, so
 * redirecting them would turn /oauth/authorize into an open redirector needing no interaction.
 * Loopback redirect URIs (native apps and MCP agents on the person's own machine) still get them.
 * Once the person has decided on the consent page, the answer (a code, or access_denied after
 * Deny) goes back to the client as usual.
 */
export function keepPreConsentErrorsHome(provider: Provider, page: PageOptions): void {
  const failed = new WeakMap<object, { statusCode?: number; expose?: boolean; message: string; error_description?: string }>();
  const remember = (ctx: KoaContextWithOIDC, err: Error) => failed.set(ctx, err);
  provider.on('authorization.error', remember);
  provider.on('server_error', remember);
  provider.use(async function preConsentErrorsStayHome(ctx, next) {
    await next();
    const err = failed.get(ctx);
    if (!err || !beforeConsent(ctx as KoaContextWithOIDC)) return;
    if (isLoopbackUri(redirectUriOf(ctx as KoaContextWithOIDC))) return;
    ctx.remove('Location');
    // prompt=none errors carry 303, meant for the redirect: on our page they are plain 400s.
    ctx.status = !err.expose ? 500 : err.statusCode && err.statusCode >= 400 ? err.statusCode : 400;
    renderOAuthError(
      ctx as KoaContextWithOIDC,
      err.expose ? { error: err.message, error_description: err.error_description } : { error: 'server_error' },
      page,
    );
  });
}

/** The authorization request itself, or its resume before the person chose Allow or Deny. */
function beforeConsent(ctx: KoaContextWithOIDC): boolean {
  const route = ctx.oidc?.route;
  if (route === 'authorization') return true;
  if (route !== 'resume') return false;
  const result = (ctx.oidc.entities as { Interaction?: { result?: { consent?: unknown; error?: unknown } } }).Interaction?.result;
  return !result?.consent && !result?.error;
}

function redirectUriOf(ctx: KoaContextWithOIDC): unknown {
  const params = (ctx.oidc?.params ?? (ctx.method === 'POST' ? ctx.oidc?.body : ctx.query)) as Record<string, unknown> | undefined;
  return params?.redirect_uri;
}

/** A loopback redirect URI (RFC 8252 §7.3): http on 127.0.0.0/8, [::1] or localhost. */
export function isLoopbackUri(uri: unknown): boolean {
  const url = typeof uri === 'string' ? URL.parse(uri) : null;
  if (!url || url.protocol !== 'http:') return false;
  if (url.hostname === 'localhost') return true;
  return isIpLiteral(url.hostname) && addressRange(stripBrackets(url.hostname)) === 'loopback';
}

/** How the provider's pages are served: over https (HSTS) or not. */
export interface PageOptions {
  https: boolean;
}

/**
 * Errors shown in the browser (bad authorization requests that cannot or must not go back to a
 * client; the provider's renderError): with the CSP and frame headers of our own pages.
 */
export function renderOAuthError(ctx: KoaContextWithOIDC, out: OAuthErrorOut, page: PageOptions): void {
  const escape = (v: unknown) => String(v ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  ctx.set(pageSecurityHeaders({ styles: [] }, page));
  ctx.type = 'html';
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in request refused</title></head>
<body><main><h1>This sign-in request cannot continue</h1><p>${escape(out.error_description ?? out.error)}</p>
<p>Go back to the application and try again.</p></main></body></html>`;
}
