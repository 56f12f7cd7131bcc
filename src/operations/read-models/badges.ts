import { badgeForSlug, type BadgeTheme } from '../../domain/launches/badges.ts';
import { winnerBadgeForSlug } from '../../domain/launches/winner-badge.ts';
import type { OperationContext } from '../operation.ts';

/** The public badge image owners embed (get_badges gives them the snippets that point at it). */

export { BADGE_THEMES } from '../../domain/launches/badges.ts';

/** The badge SVG of the listing with this slug in a theme, with its ETag; 404 for no such (or an unlisted) listing. */
export function listingBadge(
  c: Pick<OperationContext, 'db' | 'caches'>,
  slug: string,
  theme: BadgeTheme,
): Promise<{ svg: string; etag: string }> {
  return badgeForSlug(c.db, c.caches.badgeWeekRanks, slug, theme);
}

/** The winner's badge SVG of a live listing that finished in a week's top three; 404 otherwise. */
export function listingWinnerBadge(
  c: Pick<OperationContext, 'db'>,
  slug: string,
  theme: BadgeTheme,
): Promise<{ svg: string; etag: string }> {
  return winnerBadgeForSlug(c.db, slug, theme);
}
