import { featuredListings, type PlacedListing } from '../../domain/orders/placements.ts';
import { archivedPeriods, bestOf, closedWeeks, periodWeeks, previewImageOf, type ArchivedPlace } from '../../domain/ranking/archive.ts';
import { communityLeaderboard, type Leaderboard } from '../../domain/ranking/leaderboard.ts';
import type { OperationContext } from '../operation.ts';

/**
 * What the archive pages read: a closed week's final ranking with its featured launches, the best
 * launches of a month or a year, and which periods have any. Nothing here changes once a week is
 * closed, so the pages are kept for visitors like the rest.
 */

export { topPlaceOf, weekArchivePath, weekOfArchivePath } from '../../domain/ranking/archive.ts';
export type { ArchivedPlace } from '../../domain/ranking/archive.ts';

type Ctx = Pick<OperationContext, 'db' | 'site'>;

/** Launches a week's archive page ranks (a real week has a few dozen). */
const WEEK_SHOWN = 500;

/**
 * A week's ranking (`final` once the weekly close froze it), the listings featured in it, and the
 * preview image of its winner (the page's share image).
 */
export async function weekArchive(
  c: Ctx,
  monday: string,
): Promise<{ board: Leaderboard; featured: PlacedListing[]; winnerImage: string | null }> {
  const [board, featured] = await Promise.all([
    communityLeaderboard(c.db, c.site.id, { weekStart: monday, page: 1, perPage: WEEK_SHOWN }),
    featuredListings(c.db, c.site.id, monday),
  ]);
  const winner = board.items[0];
  const winnerImage = winner ? await previewImageOf(c.db, winner.id) : null;
  return { board, featured, winnerImage };
}

export interface BestOf {
  best: ArchivedPlace[];
  weeks: { week_start: string; top: ArchivedPlace[] }[];
}

/** The best launches of a month (1-12) or a year, and its closed weeks with their top three. */
export async function bestOfPeriod(c: Ctx, year: number, month: number | undefined, limit: number): Promise<BestOf> {
  const period = periodWeeks(year, month);
  const [best, weeks] = await Promise.all([bestOf(c.db, c.site.id, period, limit), closedWeeks(c.db, c.site.id, period)]);
  return { best, weeks };
}

/** The latest `count` closed weeks, newest first, each with its top three (the weeks' feed). */
export async function latestClosedWeeks(c: Ctx, count: number): Promise<BestOf['weeks']> {
  const weeks = await closedWeeks(c.db, c.site.id, { from: '2000-01-01', to: '9999-12-31' });
  return weeks.slice(-count).reverse();
}

/** Closed weeks, their months (YYYY-MM) and years, newest first. */
export const archiveIndex = (c: Ctx) => archivedPeriods(c.db, c.site.id);
