import type { Context, Middleware } from 'koa';
import { pageContext } from './invoke.ts';
import type { PageContent } from './visitor-page-cache.ts';
import { renderPage } from './render.ts';
import { currentUser } from './session.ts';
import type { WebServices } from './web-services.ts';

/**
 * Public pages as visitors without a session see them (no vote state, no CSRF token, no
 * notice): title, content and head are the same for all of them, so one api process renders
 * each page once per PAGE_CACHE_TTL_MS and answers the others from the copy (the layout around
 * it, with its per-response nonce, is still made per request). Signed-in people and `?notice=`
 * pages always get a fresh render; a vote or an unvote in this process forgets every copy.
 */

declare module 'koa' {
  interface DefaultState {
    /** Set while a page is rendered for the visitor cache: renderPage hands it what it renders. */
    keepPage?: (page: PageContent) => void;
  }
}

/**
 * Route middleware: answers visitors without a session from the kept copy of the page named by
 * `keyOf(ctx)` on the request's site; on a miss the route renders it (once for concurrent
 * visitors) and the copy is kept. A route that answers without renderPage (a redirect) is left alone.
 */
export function keptForVisitors(services: WebServices, keyOf: (ctx: Context) => string): Middleware {
  return async function keptPage(ctx, next) {
    if (services.config.cache.pageTtlMs === 0 || ctx.query.notice !== undefined || (await currentUser(ctx, services))) return next();
    const { site } = await pageContext(ctx, services);
    let rendered = false;
    const page = await services.caches.visitorPages.get(`${site.id}:${keyOf(ctx)}`, async () => {
      rendered = true;
      let kept: PageContent | null = null;
      ctx.state.keepPage = (p) => (kept = p);
      try {
        await next();
      } finally {
        ctx.state.keepPage = undefined;
      }
      return ctx.status === 200 ? kept : null;
    });
    if (rendered) return;
    if (page === null) return next();
    await renderPage(ctx, services, page);
  };
}

/** Forgets every kept page (after a vote, so the counts visitors see move at once in this process). */
export function forgetKeptPages(services: WebServices): void {
  services.caches.visitorPages.clear();
}
