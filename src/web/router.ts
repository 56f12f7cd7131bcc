import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import compose from 'koa-compose';
import { appError, knownError } from '../errors.ts';
import { verifyCsrf } from './csrf.ts';
import { html } from './html.ts';
import { multipartForms } from './multipart.ts';
import { founderPhotoUpload } from './pages/founder-profile.ts';
import { listingMediaUploads } from './pages/listing-media.ts';
import { pageModules } from './pages/index.ts';
import type { PageRoutes } from './pages/page-routes.ts';
import { renderPage } from './render.ts';
import { securityHeaders } from './security-headers.ts';
import { urlencodedForms } from './urlencoded.ts';
import type { WebServices } from './web-services.ts';

/** Paths the web pages leave to other parts of the app (REST, health, MCP, OAuth endpoints). */
const NOT_WEB = /^\/(?:api|healthz|readyz|mcp|oauth|\.well-known)(?:\/|$)/;

/**
 * The server-rendered site for every path that is not REST, health, MCP or OAuth: security
 * headers, HTML error pages, urlencoded forms only, CSRF check on every unsafe request, then
 * the page modules; an unknown page is an HTML 404.
 */
export function webPages(services: WebServices, extraModules: PageRoutes[] = []): Middleware {
  const router = new Router();
  for (const register of [...pageModules, ...extraModules]) register(router, services);
  const stack = compose<Context>([
    securityHeaders({ https: services.config.baseUrl.startsWith('https:') }),
    htmlErrors(services),
    multipartForms(founderPhotoUpload(services), listingMediaUploads(services)),
    urlencodedForms(),
    verifyCsrf(services),
    router.routes() as Middleware,
    async function notFoundPage() {
      throw appError('not_found', 'There is no page at this address.');
    },
  ]);
  return async function servePages(ctx: Context, next: Next) {
    if (NOT_WEB.test(ctx.path)) return next();
    await stack(ctx, async () => {});
  };
}

/** AppErrors become HTML pages with their status; anything else is logged and a plain 500 page. */
function htmlErrors(services: WebServices): Middleware {
  return async function renderHtmlError(ctx, next) {
    try {
      await next();
    } catch (err) {
      const known = knownError(err);
      if (!known) ctx.state.log.error({ err }, 'unhandled error on a page');
      const title = known?.title ?? 'Something went wrong';
      const detail = known?.message ?? 'Something went wrong on our side. Please try again later.';
      for (const [name, value] of Object.entries(known?.headers ?? {})) ctx.set(name, value);
      await renderPage(ctx, services, {
        title,
        status: known?.status ?? 500,
        main: html`<p>${detail}</p><p><a href="/">Go to the front page</a></p>`,
      }).catch(() => {
        // The page itself needs the database; if that is what failed, send plain text.
        ctx.status = known?.status ?? 500;
        ctx.type = 'text/plain';
        ctx.body = `${title}\n${detail}\n`;
      });
    }
  };
}
