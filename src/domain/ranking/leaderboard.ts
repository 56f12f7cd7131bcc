import { cacheOf } from '../../cache/ttl-cache.ts';
import type { Db } from '../../db/knex.ts';
import { isoWeekLabel, isoWeekStart } from './weeks.ts';

/** Listings shown on a leaderboard. */
const TOP = 100;

export const RANKING_FORMULA =
  'score = votes cast by signed-in accounts with a confirmed email during the listing’s launch week ' +
  '(Monday 00:00 to Sunday 24:00 UTC; one per account, never on one’s own listing); votes removed for fraud ' +
  'do not count and are shown as votes_removed; ties go to the earlier listing. Results are final once the ' +
  'week is closed (Monday 00:00 UTC)';

export interface LeaderboardItem {
  rank: number;
  id: number;
  slug: string;
  name: string;
  url: string;
  headline: string | null;
  logo_url: string | null;
  score: number;
  votes_removed: number;
}

export interface Leaderboard {
  week: string;
  week_start: string;
  /** `final` once the weekly close froze the week; `live` while votes can still change it. */
  state: 'live' | 'final';
  formula: string;
  items: LeaderboardItem[];
}

/**
 * The community leaderboard of one site's week (the Monday `week_start`, default the current
 * week): the frozen results once the week is closed, else the live ranking of the live listings
 * launched that week by their launch-week votes.
 */
export async function communityLeaderboard(db: Db, siteId: number, weekStart = isoWeekStart(new Date())): Promise<Leaderboard> {
  const final = await frozenResults(db, siteId, weekStart);
  const items = final.length > 0 ? final : await liveRanking(db, siteId, weekStart, TOP);
  return { week: isoWeekLabel(weekStart), week_start: weekStart, state: final.length > 0 ? 'final' : 'live', formula: RANKING_FORMULA, items };
}

/** communityLeaderboard reused for `ttlMs` per process (the public operation under load); 0 = off. */
export function cachedCommunityLeaderboard(db: Db, siteId: number, weekStart: string, ttlMs: number): Promise<Leaderboard> {
  const cache = cacheOf<Leaderboard>(db, 'leaderboard', { ttlMs, maxEntries: 500 });
  return cache.get(`${siteId}:${weekStart}`, () => communityLeaderboard(db, siteId, weekStart));
}

/**
 * The ranking of a week computed from the listings' launch-week counters (`limit` null: every
 * listing, as the weekly close freezes it). Reads the `listings_week_ranking` index.
 */
export async function liveRanking(db: Db, siteId: number, weekStart: string, limit: number | null): Promise<LeaderboardItem[]> {
  const query = db('listings as l')
    .where({ 'l.site_id': siteId, 'l.status': 'live', 'l.launch_week': weekStart })
    .orderBy([{ column: 'l.week_votes', order: 'desc' }, 'l.id'])
    .select(
      'l.id', 'l.slug', 'l.name', 'l.url', 'l.headline', 'l.logo_url', 'l.week_votes as score',
      db.raw('(SELECT count(*)::int FROM voided_votes x WHERE x.listing_id = l.id AND x.in_launch_week) AS votes_removed'),
    );
  if (limit !== null) query.limit(limit);
  const rows = await query;
  return rows.map((r, i) => ({ rank: i + 1, ...r }));
}

async function frozenResults(db: Db, siteId: number, weekStart: string): Promise<LeaderboardItem[]> {
  return db('weekly_results as r')
    .join('listings as l', 'l.id', 'r.listing_id')
    .where({ 'r.site_id': siteId, 'r.week': weekStart })
    .orderBy('r.rank')
    .limit(TOP)
    .select('r.rank', 'l.id', 'l.slug', 'l.name', 'l.url', 'l.headline', 'l.logo_url', 'r.score', 'r.votes_removed');
}
