import { featuredListings, type PlacedListing } from '../../domain/orders/placements.ts';
import { communityLeaderboard, type Leaderboard } from '../../domain/ranking/leaderboard.ts';
import type { OperationContext } from '../operation.ts';

/**
 * What the launches page reads beyond list_launch_weeks: a week's ranking as it stands and the
 * week's featured listings. The week arithmetic the pages show and link with is the domain's,
 * named here.
 */

export {
  addWeeks,
  ISO_WEEK_PATTERN,
  isMonday,
  isoWeekLabel,
  isoWeekMonday,
  isoWeekStart,
  launchWeekEnd,
} from '../../workflows/contracts/weeks.ts';
export { dayText, durationText, weekDates, weekOfText, weeksText, weekText } from '../../domain/time/week-words.ts';

/**
 * The first `perPage` of the week's ranking on the request's site. Unlike get_community_leaderboard
 * it skips the leaderboard cache: a vote posted from the page shows in the score it comes back to.
 */
export function weekRanking(c: Pick<OperationContext, 'db' | 'site'>, weekStart: string, perPage: number): Promise<Leaderboard> {
  return communityLeaderboard(c.db, c.site.id, { weekStart, page: 1, perPage });
}

/** The week's paid featured listings of the request's site (they do not change the ranking). */
export function featuredThisWeek(c: Pick<OperationContext, 'db' | 'site'>, weekStart: string): Promise<PlacedListing[]> {
  return featuredListings(c.db, c.site.id, weekStart);
}
