import { notFound } from '../errors.ts';
import type { RouteScope } from '../http/router.ts';
import { founderPhotoFile } from '../operations/read-models/founders.ts';
import { parseId } from '../operations/schemas.ts';
import type { WebServices } from './web-services.ts';

/** A day: photo URLs carry `?v=<etag>`, so a changed photo has a new URL anyway. */
const MAX_AGE_SECONDS = 86_400;

/**
 * Public media stored in PostgreSQL (so any api process can serve it): founder photos as WebP,
 * with ETag revalidation. GET and HEAD.
 */
export function mediaRoutes(router: RouteScope, services: WebServices): void {
  router.get('/media/founders/{user_id}/photo.webp', async function founderPhoto(ctx) {
    const userId = parseId(ctx.params.user_id);
    const photo = userId ? await founderPhotoFile(services, userId) : null;
    if (!photo) throw notFound('The photo');
    ctx.set('Cache-Control', `public, max-age=${MAX_AGE_SECONDS}`);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "default-src 'none'");
    ctx.etag = photo.etag;
    ctx.lastModified = photo.updated_at;
    ctx.type = 'image/webp';
    ctx.status = 200;
    // ctx.fresh compares the request's If-None-Match / If-Modified-Since with the headers above.
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = photo.image;
  });
}
