import { ServerResponse } from 'node:http';
import type { Context } from 'koa';
import { knownError } from '../errors.ts';
import type { RouteContext, RouteHandler } from '../http/router.ts';
import { compress, sendCompressed } from './compressed.ts';
import { pageContext } from './invoke.ts';
import { currentUser } from './session.ts';
import type { KeptPage } from './visitor-page-cache.ts';
import type { WebServices } from './web-services.ts';

/**
 * Public pages as visitors without a session see them (no vote state, no CSRF token, no notice)
 * are the same bytes for all of them, CSP included (src/web/security-headers.ts), so one api
 * process renders each page once per PAGE_CACHE_TTL_MS and sends the others the kept copy, gzipped
 * for the clients that ask (src/web/visitor-page-cache.ts). Signed-in people and `?notice=` pages
 * always get a fresh render; a vote or an unvote in this process forgets the copies it changes.
 */

/**
 * A page route whose answer to visitors without a session is the kept copy of the page named by
 * `keyOf(ctx)` on the request's site; `handler` renders it when no copy is kept (once for
 * concurrent visitors), and apart from any request when the copy has aged. Only a 200 HTML page
 * that set no cookie is kept: a redirect, an error page or a page that gave this browser something
 * of its own (a CSRF cookie) is left alone.
 */
export function keptForVisitors(services: WebServices, keyOf: (ctx: RouteContext) => string, handler: RouteHandler): RouteHandler {
  const pages = services.caches.visitorPages;
  return async function keptPage(ctx, next) {
    if (!pages.enabled || ctx.query.notice !== undefined || (await currentUser(ctx, services))) return handler(ctx, next);
    const { site } = await pageContext(ctx, services);
    let rendered = false;
    const kept = pages.get(
      `${site.id}:${keyOf(ctx)}`,
      async () => {
        rendered = true;
        await handler(ctx, next);
        return keepable(ctx);
      },
      () => renderAside(ctx, handler),
    );
    const page = kept instanceof Promise ? await kept : kept;
    if (page) return sendKept(ctx, page);
    // Not keepable: this request's own render has answered; a visitor who waited on someone
    // else's render (a redirect, a page that set a cookie) renders their own.
    if (!rendered) await handler(ctx, next);
  };
}

/**
 * Renders the page of the request `ctx` again in a context of its own, after `ctx` has been
 * answered with the aged copy (so nothing of it is written to the visitor's response).
 */
async function renderAside(ctx: RouteContext, handler: RouteHandler): Promise<KeptPage | null> {
  const aside = ctx.app.createContext(ctx.req, new ServerResponse(ctx.req)) as RouteContext;
  aside.params = ctx.params;
  aside.state = { ...ctx.state };
  try {
    await handler(aside, async () => {});
  } catch (err) {
    if (!knownError(err)) ctx.state.log.error({ err }, 'rendering a kept page again failed');
    throw err;
  }
  return keepable(aside);
}

/**
 * Forgets what a vote on the listing `slug` in this process changes, so the counts visitors see
 * move at once: its own page and every page that ranks listings (all kept pages but the other
 * listings' own).
 */
export function forgetKeptPages(services: WebServices, slug: string): void {
  const own = `:${listingPageKey(slug)}`;
  services.caches.visitorPages.forget((key) => !key.includes(':listing:') || key.endsWith(own));
}

/** The key of a listing's own page among the kept pages of its site. */
export const listingPageKey = (slug: string) => `listing:${slug.toLowerCase()}`;

async function keepable(ctx: Context): Promise<KeptPage | null> {
  if (ctx.status !== 200 || typeof ctx.body !== 'string' || !ctx.response.is('html') || ctx.response.get('Set-Cookie')) return null;
  return { csp: ctx.response.get('Content-Security-Policy'), ...(await compress(ctx.body)) };
}

function sendKept(ctx: Context, page: KeptPage): void {
  ctx.status = 200;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', page.csp);
  sendCompressed(ctx, page);
}
