import type { Context } from 'koa';
import type { BadgeTheme } from '../../domain/launches/badges.ts';
import { AppError, notFound } from '../../errors/errors.ts';
import { publicCors } from '../../http/cors.ts';
import { BADGE_THEMES, listingBadge, listingWinnerBadge } from '../../operations/read-models/badges.ts';
import type { PageRoutes } from './page-routes.ts';

/** Badges change with votes; caches may keep one for a few minutes and revalidate by ETag. */
const CACHE_CONTROL = 'public, max-age=300, must-revalidate';

/** `/badges/{slug}.svg?theme=light|dark`, the launch badge owners embed, and `/badges/{slug}/winner.svg`, a top-three week's. */
export const badgePages: PageRoutes = (router, services) => {
  router.get('/badges/{file}', publicCors(), async function badgeImage(ctx) {
    const slug = /^([a-z0-9]+(?:-[a-z0-9]+)*)\.svg$/.exec(ctx.params.file!)?.[1];
    if (!slug || slug.length > 200) throw notFound('The badge');
    sendBadge(ctx, await listingBadge(services, slug, themeOf(ctx.query.theme)), CACHE_CONTROL);
  });

  // A closed week never changes: the winner's badge may be kept for a day.
  router.get('/badges/{slug}/winner.svg', publicCors(), async function winnerBadgeImage(ctx) {
    const slug = ctx.params.slug!;
    if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug) || slug.length > 200) throw notFound('The badge');
    sendBadge(ctx, await listingWinnerBadge(services, slug, themeOf(ctx.query.theme)), 'public, max-age=86400');
  });
};

function themeOf(theme: unknown = 'light'): BadgeTheme {
  if (typeof theme !== 'string' || !(BADGE_THEMES as readonly string[]).includes(theme)) {
    throw new AppError('invalid_theme', `theme must be one of: ${BADGE_THEMES.join(', ')}.`);
  }
  return theme as BadgeTheme;
}

function sendBadge(ctx: Context, badge: { svg: string; etag: string }, cacheControl: string): void {
  ctx.set('Cache-Control', cacheControl);
  ctx.set('ETag', badge.etag);
  ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
  if (
    ctx
      .get('If-None-Match')
      .split(',')
      .some((t) => t.trim() === badge.etag)
  ) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'image/svg+xml';
  ctx.body = badge.svg;
}
