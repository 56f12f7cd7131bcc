import type { Middleware } from 'koa';
import { appError, knownError } from '../errors/errors.ts';
import type { Router } from '../http/router.ts';
import { verifyCsrf } from './csrf.ts';
import { forgetAfterTheirRequests } from './session.ts';
import { html } from './html.ts';
import { PAGE_STYLE } from './layout.ts';
import { multipartForms } from './multipart.ts';
import { founderPhotoUpload } from './pages/founder-profile.ts';
import { listingMediaUploads } from './pages/listing-media.ts';
import { pageModules } from './pages/index.ts';
import { newsletterPostsWithoutCsrf } from './pages/newsletter.ts';
import { oneClickUnsubscribe } from './pages/unsubscribe.ts';
import type { PageRoutes } from './pages/page-routes.ts';
import { renderPage } from './render.ts';
import { securityHeaders } from './security-headers.ts';
import { urlencodedForms } from './urlencoded.ts';
import type { WebServices } from './web-services.ts';

/**
 * The server-rendered site, as routes of the app's router behind security headers, HTML error
 * pages, the form readers (urlencoded; multipart on upload routes) and a CSRF check on every
 * unsafe request. Answers with the handler for a path no route has: an HTML 404 page.
 */
export function webPages(router: Router, services: WebServices, extraModules: PageRoutes[] = []): Middleware {
  const pages = router.scope([
    securityHeaders({ https: services.config.baseUrl.startsWith('https:') }, PAGE_STYLE),
    htmlErrors(services),
    multipartForms(founderPhotoUpload(services), listingMediaUploads(services)),
    urlencodedForms(),
    verifyCsrf(services),
    forgetAfterTheirRequests(services),
  ]);
  for (const register of [...pageModules, ...extraModules]) register(pages, services);
  // Mail clients POST a one-click unsubscribe (RFC 8058) without cookies, so without a CSRF
  // token: the signed token in its path is what authorises it, and it only ever stops mail.
  const oneClick = router.scope([
    securityHeaders({ https: services.config.baseUrl.startsWith('https:') }, PAGE_STYLE),
    htmlErrors(services),
    urlencodedForms(),
  ]);
  oneClickUnsubscribe(oneClick, services);
  newsletterPostsWithoutCsrf(oneClick, services);
  return (ctx) =>
    pages.handle(ctx, async function notFoundPage() {
      throw appError('not_found', 'There is no page at this address.');
    });
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
