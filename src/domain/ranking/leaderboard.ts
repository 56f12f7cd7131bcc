import { TtlCache } from '../../cache/ttl-cache.ts';
import type { Db } from '../../db/knex.ts';
import { isoWeekLabel } from '../../workflows/contracts/weeks.ts';

export const RANKING_FORMULA =
  'score = votes cast by signed-in accounts with a confirmed email during the listing’s launch week ' +
  '(Monday 00:00 to Sunday 24:00 UTC; one per account, never on one’s own listing), each counting 1; a vote the ' +
  'vote-ring detectors flag (network_cluster, co_voting_ring, burst) is discounted: kept, counting 0, shown as ' +
  'votes_discounted (the detectors scan every hour and once more before the close; the same votes always give the ' +
  'same score); votes removed for fraud do not count and are shown as votes_removed; ties go to the earlier listing. ' +
  'Results are final once the week is closed (Monday 00:00 UTC). The policy in plain words: /ranking-policy';

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
  /** Launch-week votes a detector flagged: kept, counting 0. */
  votes_discounted: number;
  /** Visible comments of its discussion (the listing's counter). */
  comment_count: number;
}

export interface Leaderboard {
  week: string;
  week_start: string;
  /** `final` once the weekly close froze the week; `live` while votes can still change it. */
  state: 'live' | 'final';
  formula: string;
  items: LeaderboardItem[];
  page: number;
  per_page: number;
  /** Ranked listings of the week. */
  total: number;
}

export interface LeaderboardQuery {
  /** Monday of the week (YYYY-MM-DD). */
  weekStart: string;
  page: number;
  perPage: number;
}

/**
 * The community leaderboard of one site's week, one page of it: the frozen results once the
 * week is closed, else the live ranking of the live listings launched that week by their
 * launch-week votes.
 */
export async function communityLeaderboard(db: Db, siteId: number, query: LeaderboardQuery): Promise<Leaderboard> {
  const { weekStart, page, perPage } = query;
  const window = { limit: perPage, offset: (page - 1) * perPage };
  const frozen = await frozenCount(db, siteId, weekStart);
  const items = frozen > 0 ? await frozenResults(db, siteId, weekStart, window) : await liveRanking(db, siteId, weekStart, window);
  // A page that is not full ends the ranking: no need to count (a real week has a few dozen launches).
  const partial = items.length < window.limit && (items.length > 0 || window.offset === 0);
  const total = frozen > 0 ? frozen : partial ? window.offset + items.length : await liveCount(db, siteId, weekStart);
  return {
    week: isoWeekLabel(weekStart),
    week_start: weekStart,
    state: frozen > 0 ? 'final' : 'live',
    formula: RANKING_FORMULA,
    items,
    page,
    per_page: perPage,
    total,
  };
}

/** Leaderboard pages, one cache per process (built by createServices); a TTL of 0 turns it off. */
export type LeaderboardCache = TtlCache<Leaderboard>;

export const createLeaderboardCache = (ttlMs: number): LeaderboardCache => new TtlCache({ ttlMs, maxEntries: 1_000 });

/** communityLeaderboard reused for the cache's TTL (the public operation under load). */
export function cachedCommunityLeaderboard(db: Db, cache: LeaderboardCache, siteId: number, query: LeaderboardQuery): Promise<Leaderboard> {
  return cache.get(`${siteId}:${query.weekStart}:${query.page}:${query.perPage}`, () => communityLeaderboard(db, siteId, query));
}

/** A page of a week's live ranking, from the listings' launch-week counters (index `listings_week_ranking`). */
export async function liveRanking(
  db: Db,
  siteId: number,
  weekStart: string,
  window: { limit: number; offset: number },
): Promise<LeaderboardItem[]> {
  const rows = await liveListings(db, siteId, weekStart)
    .orderBy([{ column: 'l.week_votes', order: 'desc' }, 'l.id'])
    .limit(window.limit)
    .offset(window.offset)
    .select(
      'l.id',
      'l.slug',
      'l.name',
      'l.url',
      'l.headline',
      'l.logo_url',
      'l.week_votes as score',
      'l.comment_count',
      db.raw('(SELECT count(*)::int FROM voided_votes x WHERE x.listing_id = l.id AND x.in_launch_week) AS votes_removed'),
      db.raw('(SELECT count(*)::int FROM votes d WHERE d.listing_id = l.id AND d.discount_reason IS NOT NULL) AS votes_discounted'),
    );
  return rows.map((r, i) => ({ rank: window.offset + i + 1, ...r }));
}

const liveListings = (db: Db, siteId: number, weekStart: string) =>
  db('listings as l').where({ 'l.site_id': siteId, 'l.status': 'live', 'l.launch_week': weekStart });

async function liveCount(db: Db, siteId: number, weekStart: string): Promise<number> {
  const [{ count }] = await liveListings(db, siteId, weekStart).count({ count: '*' });
  return Number(count);
}

async function frozenCount(db: Db, siteId: number, weekStart: string): Promise<number> {
  const [{ count }] = await db('weekly_results').where({ site_id: siteId, week: weekStart }).count({ count: '*' });
  return Number(count);
}

async function frozenResults(
  db: Db,
  siteId: number,
  weekStart: string,
  window: { limit: number; offset: number },
): Promise<LeaderboardItem[]> {
  return db('weekly_results as r')
    .join('listings as l', 'l.id', 'r.listing_id')
    .where({ 'r.site_id': siteId, 'r.week': weekStart })
    .orderBy('r.rank')
    .limit(window.limit)
    .offset(window.offset)
    .select(
      'r.rank',
      'l.id',
      'l.slug',
      'l.name',
      'l.url',
      'l.headline',
      'l.logo_url',
      'r.score',
      'r.votes_removed',
      'r.votes_discounted',
      'l.comment_count',
    );
}
