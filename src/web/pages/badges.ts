import type { BadgeTheme } from '../../domain/launches/badges.ts';
import { AppError, notFound } from '../../errors/errors.ts';
import { publicCors } from '../../http/cors.ts';
import { BADGE_THEMES, listingBadge } from '../../operations/read-models/badges.ts';
import type { PageRoutes } from './page-routes.ts';

/** Badges change with votes; caches may keep one for a few minutes and revalidate by ETag. */
const CACHE_CONTROL = 'public, max-age=300, must-revalidate';

/** `/badges/{slug}.svg?theme=light|dark`: the public badge image owners embed. */
export const badgePages: PageRoutes = (router, services) => {
  router.get('/badges/{file}', publicCors(), async function badgeImage(ctx) {
    const slug = /^([a-z0-9]+(?:-[a-z0-9]+)*)\.svg$/.exec(ctx.params.file!)?.[1];
    if (!slug || slug.length > 200) throw notFound('The badge');
    const theme = ctx.query.theme ?? 'light';
    if (typeof theme !== 'string' || !(BADGE_THEMES as readonly string[]).includes(theme)) {
      throw new AppError('invalid_theme', `theme must be one of: ${BADGE_THEMES.join(', ')}.`);
    }
    const badge = await listingBadge(services, slug, theme as BadgeTheme);
    ctx.set('Cache-Control', CACHE_CONTROL);
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
  });
};
