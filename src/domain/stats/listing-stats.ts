import type { Db } from '../../db/knex.ts';
import { validationFailed } from '../../errors/errors.ts';
import { getOwnedListing, type ListingRow } from '../listings/listings.ts';
import { weekStartMs } from '../../workflows/contracts/weeks.ts';

export const GRANULARITIES = ['hour', 'day'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

const HOUR_MS = 3_600_000;
const STEP_MS: Record<Granularity, number> = { hour: HOUR_MS, day: 24 * HOUR_MS };
/** The longest range per granularity: 31 days of hours (744 points), 366 days. */
export const MAX_RANGE_DAYS: Record<Granularity, number> = { hour: 31, day: 366 };
/** How many referrer hosts the stats name. */
export const TOP_REFERRERS = 10;

export interface StatsPoint {
  at: string;
  views: number;
  clicks: number;
  votes: number;
  followers: number;
}

export interface ListingStats {
  listing_id: number;
  from: string;
  to: string;
  granularity: Granularity;
  series: StatsPoint[];
  totals: Omit<StatsPoint, 'at'>;
  top_referrers: { host: string; views: number }[];
}

export interface StatsQuery {
  from?: Date;
  to?: Date;
  granularity: Granularity;
}

/**
 * The default range: the listing's launch week (Monday 00:00 UTC for 7 days) once it has one,
 * else the 7 days up to the end of the current hour.
 */
export function defaultRange(listing: Pick<ListingRow, 'launch_week'>, nowMs: number): { from: Date; to: Date } {
  if (listing.launch_week) {
    const start = weekStartMs(listing.launch_week);
    return { from: new Date(start), to: new Date(start + 7 * 24 * HOUR_MS) };
  }
  const end = Math.ceil((nowMs + 1) / HOUR_MS) * HOUR_MS;
  return { from: new Date(end - 7 * 24 * HOUR_MS), to: new Date(end) };
}

/**
 * Views, clicks, votes and new followers of one of the owner's listings per hour or day (UTC),
 * from `from` (rounded down to the granularity) until `to` (rounded up), with the totals and the
 * hosts most views came from. Another owner's listing is not found.
 */
export async function listingStats(db: Db, ownerId: number, listingId: number, query: StatsQuery, nowMs: number): Promise<ListingStats> {
  const listing = await getOwnedListing(db, ownerId, listingId);
  // Given one end, the range is the week from or up to it; given neither, the default range.
  const week = 7 * 24 * HOUR_MS;
  const fallback = defaultRange(listing, nowMs);
  const start = query.from ?? (query.to ? new Date(query.to.getTime() - week) : fallback.from);
  const end = query.to ?? (query.from ? new Date(query.from.getTime() + week) : fallback.to);
  const step = STEP_MS[query.granularity];
  const from = Math.floor(start.getTime() / step) * step;
  const to = Math.ceil(end.getTime() / step) * step;
  if (to <= from) throw validationFailed([{ path: 'to', message: 'Must be later than from' }], 'The range ends before it starts.');
  if (to - from > MAX_RANGE_DAYS[query.granularity] * 24 * HOUR_MS) {
    throw validationFailed(
      [{ path: 'to', message: `At most ${MAX_RANGE_DAYS[query.granularity]} days after from with granularity ${query.granularity}` }],
      'The range is too long for this granularity.',
    );
  }
  const unit = query.granularity;
  const bounds = {
    id: listing.id,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    unit,
    step: `${step / HOUR_MS} hours`,
  };
  const [{ rows }, referrers] = await Promise.all([
    db.raw<{ rows: { at: Date; views: number; clicks: number; votes: number; followers: number }[] }>(
      `WITH buckets AS (
         SELECT generate_series(:from::timestamptz, :to::timestamptz - :step::interval, :step::interval) AS at
       ), counts AS (
         SELECT date_trunc(:unit, hour, 'UTC') AS at, sum(views)::int AS views, sum(clicks)::int AS clicks
         FROM listing_hourly_counts WHERE listing_id = :id AND hour >= :from AND hour < :to GROUP BY 1
       ), cast_votes AS (
         SELECT date_trunc(:unit, created_at, 'UTC') AS at, count(*)::int AS votes
         FROM votes WHERE listing_id = :id AND created_at >= :from AND created_at < :to GROUP BY 1
       ), follows AS (
         SELECT date_trunc(:unit, created_at, 'UTC') AS at, count(*)::int AS followers
         FROM listing_followers WHERE listing_id = :id AND created_at >= :from AND created_at < :to GROUP BY 1
       )
       SELECT b.at, coalesce(c.views, 0) AS views, coalesce(c.clicks, 0) AS clicks,
              coalesce(v.votes, 0) AS votes, coalesce(f.followers, 0) AS followers
       FROM buckets b
       LEFT JOIN counts c ON c.at = b.at
       LEFT JOIN cast_votes v ON v.at = b.at
       LEFT JOIN follows f ON f.at = b.at
       ORDER BY b.at`,
      bounds,
    ),
    db('listing_hourly_counts')
      .where({ listing_id: listing.id })
      .andWhere('hour', '>=', bounds.from)
      .andWhere('hour', '<', bounds.to)
      .andWhereNot('referrer_host', '')
      .groupBy('referrer_host')
      .select('referrer_host as host', db.raw('sum(views)::int AS views'))
      .orderBy([
        { column: 'views', order: 'desc' },
        { column: 'host', order: 'asc' },
      ])
      .limit(TOP_REFERRERS) as Promise<{ host: string; views: number }[]>,
  ]);
  const series = rows.map((r) => ({ at: r.at.toISOString(), views: r.views, clicks: r.clicks, votes: r.votes, followers: r.followers }));
  const totals = { views: 0, clicks: 0, votes: 0, followers: 0 };
  for (const p of series) {
    totals.views += p.views;
    totals.clicks += p.clicks;
    totals.votes += p.votes;
    totals.followers += p.followers;
  }
  return { listing_id: listing.id, from: bounds.from, to: bounds.to, granularity: unit, series, totals, top_referrers: referrers };
}
