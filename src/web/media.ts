import { notFound } from '../errors/errors.ts';
import type { RouteContext, RouteScope } from '../http/router.ts';
import { founderPhotoFile } from '../operations/read-models/founders.ts';
import { cardImageFile, founderCardFile, mediaFile } from '../operations/read-models/media.ts';
import { siteOrigin } from './head.ts';
import { pageContext } from './invoke.ts';
import { parseId } from '../operations/schemas.ts';
import type { WebServices } from './web-services.ts';

/** A day: photo URLs carry `?v=<etag>`, so a changed photo has a new URL anyway. */
const PHOTO_MAX_AGE = 'public, max-age=86400';
/** A file whose URL names its content never changes: keep it for a year, never revalidate. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** A card asked for without its current version (`?v=`): it changes when the listing (or the founder) does. */
const CARD_MAX_AGE = 'public, max-age=300';

const LOGO_ID = /^[0-9a-f]{32}$/;
const LOGO_FILE = /^(?:256|64)\.png$/;
const IMAGE_FILE = /^[0-9a-f]{32}\.jpg$/;
const CARD_FILE = /^(.{1,200})\.png$/;

interface Served {
  body: Buffer;
  etag: string;
  contentType: string;
  cacheControl: string;
  lastModified?: Date;
}

/**
 * THE media path: public images stored in PostgreSQL (so any api process serves them) under
 * /media: founder photos, listing logos and preview images (named by a hash of their content, so
 * cached for good), and listings' generated card images. Strong ETags; If-None-Match answers 304.
 * GET and HEAD.
 */
export function mediaRoutes(router: RouteScope, services: WebServices): void {
  router.get('/media/founders/{user_id}/photo.webp', async function founderPhoto(ctx) {
    const userId = parseId(ctx.params.user_id);
    const photo = userId ? await founderPhotoFile(services, userId) : null;
    if (!photo) throw notFound('The photo');
    send(ctx, {
      body: photo.image,
      etag: photo.etag,
      contentType: 'image/webp',
      cacheControl: PHOTO_MAX_AGE,
      lastModified: photo.updated_at,
    });
  });
  router.get('/media/founders/{user_id}/card.png', async function founderCard(ctx) {
    const userId = parseId(ctx.params.user_id);
    const c = await pageContext(ctx, services);
    const card = userId ? await founderCardFile(c, userId, siteOrigin(c.site, services.config.baseUrl)) : null;
    if (!card) throw notFound('The card image');
    send(ctx, { body: card.body, etag: card.etag, contentType: card.contentType, cacheControl: CARD_MAX_AGE });
  });
  router.get('/media/logos/{id}/{file}', async function listingLogo(ctx) {
    const { id, file } = ctx.params as { id: string; file: string };
    await sendStored(ctx, LOGO_ID.test(id) && LOGO_FILE.test(file) ? `logos/${id}/${file}` : null, 'The logo');
  });
  router.get('/media/images/{file}', async function listingImage(ctx) {
    const { file } = ctx.params as { file: string };
    await sendStored(ctx, IMAGE_FILE.test(file) ? `images/${file}` : null, 'The image');
  });
  router.get('/media/cards/{file}', async function listingCard(ctx) {
    const slug = CARD_FILE.exec((ctx.params as { file: string }).file)?.[1];
    const card = slug ? await cardImageFile(services, slug) : null;
    if (!card) throw notFound('The card image');
    const cacheControl = ctx.query.v === card.version ? IMMUTABLE : CARD_MAX_AGE;
    send(ctx, { body: card.body, etag: card.etag, contentType: card.contentType, cacheControl });
  });

  async function sendStored(ctx: RouteContext, key: string | null, what: string) {
    const file = key ? await mediaFile(services, key) : null;
    if (!file) throw notFound(what);
    send(ctx, { body: file.body, etag: file.etag, contentType: file.contentType, cacheControl: IMMUTABLE });
  }
}

function send(ctx: RouteContext, file: Served) {
  ctx.set('Cache-Control', file.cacheControl);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Content-Security-Policy', "default-src 'none'");
  ctx.etag = file.etag;
  if (file.lastModified) ctx.lastModified = file.lastModified;
  ctx.type = file.contentType;
  ctx.status = 200;
  // ctx.fresh compares the request's If-None-Match / If-Modified-Since with the headers above.
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = file.body;
}
