import { ServerResponse } from 'node:http';
import type { Context, Middleware, Next } from 'koa';
import { knownError } from '../errors/errors.ts';
import type { RouteContext, RouteHandler } from '../http/router.ts';
import { compress, compressedBody, sendCompressed } from './compressed.ts';
import { pageContext } from './invoke.ts';
import {
  notModified,
  ownPublicCacheControl,
  PRIVATE_PAGE,
  publicCacheControl,
  sentSessionCookie,
  visitorPageHeaders,
} from './public-caching.ts';
import { joinSlots, splitPage, type FilledPart, type SplitPage } from './personal-slots.ts';
import { bodyFor } from './body-buffers.ts';
import { currentUser, SESSION_COOKIE } from './session.ts';
import { forgetChanged, type KeptPage, type VisitorPageCache } from './visitor-page-cache.ts';
import type { WebServices } from './web-services.ts';

/**
 * Public pages as visitors without a session see them (no vote state, no CSRF token, no notice)
 * are the same bytes for all of them, CSP included (src/web/security-headers.ts), so one api
 * process renders each page once per PAGE_CACHE_TTL_MS and sends the others the kept copy,
 * compressed (brotli or gzip) for the clients that ask (src/web/visitor-page-cache.ts). Signed-in
 * people get the kept copy with their own parts put in on routes that say how (`personal`), a
 * fresh render elsewhere; `?notice=` pages always get a fresh render. A vote or an unvote in this
 * process forgets the copies it changes, and the change notice of a write in any process makes
 * every api process forget them (src/db/notify.ts, forgetNoticed in src/services.ts). Once a page is kept,
 * the lane in front of the app (keptPageLane) answers its visitors. What visitors get says so to
 * shared caches too (src/web/public-caching.ts): `public` with `s-maxage`, an ETag (If-None-Match
 * gets a 304) and `Vary: Cookie`, so a CDN or a caching proxy keeps it for visitors and never
 * sends it to a signed-in person.
 */

/**
 * A page route whose answer to visitors without a session is the kept copy of the page named by
 * `keyOf(ctx)` on the request's site; `handler` renders it when no copy is kept (once for
 * concurrent visitors), and apart from any request when the copy has aged. Only a 200 HTML page
 * (or XML: the sitemap) that set no cookie is kept: a redirect, an error page or a page that gave
 * this browser something of its own (a CSRF cookie) is left alone. `visited` runs after every 200
 * answer of the route, kept, rendered or sent by the lane (keptPageLane), with the route's parameters.
 */
export function keptForVisitors(
  services: WebServices,
  keyOf: (ctx: RouteContext) => string,
  handler: RouteHandler,
  options: { visited?: (ctx: Context, params: RouteContext['params']) => void; personal?: PersonalParts } = {},
): RouteHandler {
  const pages = services.caches.visitorPages;
  const { visited, personal } = options;
  return async function keptPage(ctx, next) {
    await answer(ctx, next);
    if (visited && (ctx.status === 200 || ctx.status === 304)) visited(ctx, ctx.params);
  };

  async function answer(ctx: RouteContext, next: Next): Promise<unknown> {
    if (ctx.query.notice !== undefined) return handler(ctx, next);
    if (await currentUser(ctx, services)) {
      if (!personal || !pages.enabled || !services.config.cache.personalSlots) return handler(ctx, next);
      return answerPersonal(ctx, next, personal);
    }
    if (!pages.enabled) return answerUnkept(ctx, next);
    const { site } = await pageContext(ctx, services);
    const key = `${site.id}:${keyOf(ctx)}`;
    let rendered = false;
    const kept = pages.get(
      key,
      async () => {
        rendered = true;
        await handler(ctx, next);
        return keepable(ctx, services);
      },
      () => renderAside(ctx, services, handler, ctx.state),
    );
    const page = kept instanceof Promise ? await kept : kept;
    if (page) {
      const { params } = ctx;
      pages.remember(addressOf(ctx), { key, visited: visited && ((lane) => visited(lane, params)) });
      return sendKept(ctx, page);
    }
    // Not keepable: this request's own render has answered; a visitor who waited on someone
    // else's render (a redirect, a page that set a cookie) renders their own.
    if (!rendered) await handler(ctx, next);
  }

  /**
   * A signed-in person's page: the kept visitors' copy (rendered as a visitor's, apart from this
   * request, when none is) with the person's parts in its slots; the whole page rendered for them
   * when `personal` declines (a flash to show, a thread that is not the visitors').
   */
  async function answerPersonal(ctx: RouteContext, next: Next, personal: PersonalParts): Promise<unknown> {
    const { site } = await pageContext(ctx, services);
    const asVisitor = visitorState(ctx);
    const aside = () => renderAside(ctx, services, handler, asVisitor);
    const kept = pages.get(`${site.id}:${keyOf(ctx)}`, aside, aside);
    const page = kept instanceof Promise ? await kept : kept;
    const split = page && splitPage(page.plain);
    const parts = split && (await personal(ctx, split));
    if (!split || !parts) return handler(ctx, next);
    ctx.state.onlyRead = true;
    ctx.status = 200;
    for (const [name, value] of Object.entries(page.headers)) if (!VALIDATORS.has(name)) ctx.set(name, value);
    ctx.set('Cache-Control', PRIVATE_PAGE);
    ctx.body = joinSlots(split, parts, (size) => bodyFor(ctx.res, size));
  }

  /** Nothing kept (PAGE_CACHE_TTL_MS=0): the visitor's own render, with what shared caches need. */
  async function answerUnkept(ctx: RouteContext, next: Next): Promise<void> {
    await handler(ctx, next);
    const plain = sameForEveryVisitor(ctx) && (compressedBody(ctx)?.plain ?? (typeof ctx.body === 'string' ? Buffer.from(ctx.body) : null));
    if (!plain || sentSessionCookie(ctx)) return;
    ctx.set(visitorPageHeaders(plain, services.clock.now(), cacheControlOf(ctx, services)));
    ctx.set('Vary', compressedBody(ctx) ? 'Cookie, Accept-Encoding' : 'Cookie');
    if (notModified(ctx, ctx.response.headers as Record<string, string>)) ctx.status = 304;
  }
}

/**
 * In front of the app's routes (src/app.ts): a GET without a session cookie to an address whose
 * page is kept gets that page at once, without the router, the page scope's readers and checks, or
 * a session and site lookup: a kept page then costs little more than its bytes. Every other
 * request goes on, and so does the one that is to start rendering an aged copy again
 * (VisitorPageCache.keptAt).
 */
export function keptPageLane(pages: VisitorPageCache): Middleware {
  const sessionCookie = `${SESSION_COOKIE}=`;
  return async function keptPageLane(ctx, next) {
    if (ctx.method !== 'GET' || !pages.enabled || ctx.get('cookie').includes(sessionCookie)) return next();
    const kept = pages.keptAt(addressOf(ctx));
    if (!kept) return next();
    sendKept(ctx, kept.page);
    kept.visited?.(ctx);
  };
}

/**
 * What a request asks for, as sent: the URL and the headers the site is found by. Two requests with
 * the same address are answered with the same kept page (a proxy's X-Forwarded-Host is part of it
 * whether or not proxies are trusted: more addresses than needed are harmless, fewer would not be).
 */
const addressOf = (ctx: Context) => `${ctx.get('host')}\n${ctx.get('x-forwarded-host')}\n${ctx.url}`;

/**
 * What makes a signed-in person's page of a route out of the kept visitors' page, cut once at its
 * slots (src/web/personal-slots.ts): the person's part for each slot in order, or null to render
 * the page whole for them.
 */
export type PersonalParts = (ctx: RouteContext, kept: SplitPage) => Promise<FilledPart[] | null>;

/** A request's state as a visitor's: no session, no token, no page context made for the person. */
const visitorState = (ctx: Context): RouteContext['state'] => ({
  ...ctx.state,
  webSession: null,
  csrfToken: undefined,
  pageContext: undefined,
});

/** What a kept page tells caches about itself, which a person's own page does not. */
const VALIDATORS = new Set(['etag', 'last-modified', 'cache-control']);

/**
 * Renders the page of the request `ctx` again in a context of its own, after `ctx` has been
 * answered with the aged copy (so nothing of it is written to the visitor's response).
 */
async function renderAside(
  ctx: RouteContext,
  services: WebServices,
  handler: RouteHandler,
  state: RouteContext['state'],
): Promise<KeptPage | null> {
  const aside = ctx.app.createContext(ctx.req, new ServerResponse(ctx.req)) as RouteContext;
  aside.params = ctx.params;
  aside.state = { ...state };
  try {
    await handler(aside, async () => {});
  } catch (err) {
    if (!knownError(err)) ctx.state.log.error({ err }, 'rendering a kept page again failed');
    throw err;
  }
  return keepable(aside, services);
}

/**
 * Forgets what a vote on the listing `slug` in this process changes, so the counts visitors see
 * move at once: its own page and every page that ranks listings (all kept pages but the other
 * listings' own). Other api processes forget the same pages when the vote's change notice reaches
 * them (src/db/notify.ts, forgetChanged).
 */
export function forgetKeptPages(services: WebServices, slug: string): void {
  forgetChanged(services.caches.visitorPages, { slug });
}

export { listingPageKey } from './visitor-page-cache.ts';

/** Headers a response has for its request or its encoding alone: not kept with a page. */
const OF_ONE_RESPONSE = new Set(['x-request-id', 'content-length', 'content-encoding', 'vary', 'set-cookie']);

/** A 200 HTML page (or XML: the sitemap) that gave this browser nothing of its own (no cookie: no CSRF token, no flash). */
const sameForEveryVisitor = (ctx: Context) => ctx.status === 200 && ctx.response.is('html', 'xml') && !ctx.response.get('Set-Cookie');

/** What a visitor's page tells shared caches: its own public Cache-Control (the sitemap's), else PUBLIC_PAGE_*. */
const cacheControlOf = (ctx: Context, services: WebServices) =>
  ownPublicCacheControl(ctx.response.get('Cache-Control')) ?? publicCacheControl(services.config.publicPages);

async function keepable(ctx: Context, services: WebServices): Promise<KeptPage | null> {
  if (!sameForEveryVisitor(ctx)) return null;
  const body = compressedBody(ctx) ?? (typeof ctx.body === 'string' ? await compress(ctx.body) : null);
  if (!body) return null;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.response.headers)) {
    if (value !== undefined && !OF_ONE_RESPONSE.has(name)) headers[name] = String(value);
  }
  Object.assign(headers, visitorPageHeaders(body.plain, services.clock.now(), cacheControlOf(ctx, services)));
  return { headers, plain: body.plain, gzip: body.gzip, br: body.br };
}

/**
 * Sends a kept page, or a 304 when the request's validators match it. A request that carries a
 * session cookie the service no longer knows gets the visitor's page too, but `private`: no
 * shared cache stores an answer to a session cookie.
 */
function sendKept(ctx: Context, page: KeptPage): void {
  ctx.status = 200;
  ctx.set(page.headers);
  // What changes the answer: a session cookie (then it is another page), and the encoding.
  ctx.set('Vary', 'Cookie, Accept-Encoding');
  if (sentSessionCookie(ctx)) ctx.set('Cache-Control', PRIVATE_PAGE);
  else if (notModified(ctx, page.headers)) {
    ctx.status = 304;
    return;
  }
  sendCompressed(ctx, page);
}
