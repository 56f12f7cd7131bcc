import { TtlCache } from '../../cache/ttl-cache.ts';
import type { Db } from '../../db/knex.ts';

/** What paid placements show publicly: the featured strip, category pages, the billboard. */

export interface PlacedListing {
  id: number;
  slug: string;
  name: string;
  url: string;
  headline: string | null;
  logo_url: string | null;
  /** Visible comments of its discussion (the cards show it). */
  comment_count: number;
}

const PLACED_COLUMNS = ['l.id', 'l.slug', 'l.name', 'l.url', 'l.headline', 'l.logo_url', 'l.comment_count'];

/** Live listings featured in the week starting `weekStart` (a Monday, YYYY-MM-DD), earliest booking first. */
export async function featuredListings(db: Db, siteId: number, weekStart: string): Promise<PlacedListing[]> {
  return db('featured_placements as f')
    .join('listings as l', 'l.id', 'f.listing_id')
    .where({ 'f.site_id': siteId, 'f.week_start': weekStart, 'l.status': 'live' })
    .groupBy('l.id')
    .orderByRaw('min(f.order_line_id)')
    .select(PLACED_COLUMNS);
}

/** Live listings of a category: paid placements first (earliest booking first), then by votes. */
export async function categoryListings(
  db: Db,
  siteId: number,
  category: string,
  limit = 50,
): Promise<(PlacedListing & { placed: boolean })[]> {
  return db('listings as l')
    .leftJoin(
      db('category_placements')
        .where({ site_id: siteId, category })
        .groupBy('listing_id')
        .select('listing_id', db.raw('min(order_line_id) AS first_line'))
        .as('p'),
      'p.listing_id',
      'l.id',
    )
    .where({ 'l.site_id': siteId, 'l.status': 'live' })
    .where((q) => q.whereNotNull('p.listing_id').orWhereRaw('? = ANY(l.categories)', [category]))
    .orderByRaw('p.first_line IS NULL, p.first_line, l.votes DESC, l.id')
    .limit(limit)
    .select([...PLACED_COLUMNS, db.raw('p.listing_id IS NOT NULL AS placed')]);
}

/** The listing on the site's billboard on `day` (YYYY-MM-DD), if one is booked and live. */
export async function billboardOn(db: Db, siteId: number, day: string): Promise<PlacedListing | null> {
  const row = await db('billboard_days as b')
    .join('listings as l', 'l.id', 'b.listing_id')
    .where({ 'b.site_id': siteId, 'b.day': day, 'l.status': 'live' })
    .first(PLACED_COLUMNS);
  return row ?? null;
}

/** Today's billboard per site and day, one cache per process (built by createServices). */
export type BillboardCache = TtlCache<PlacedListing | null>;

export const createBillboardCache = (ttlMs: number): BillboardCache => new TtlCache({ ttlMs, maxEntries: 100 });

/** Today's billboard, read on every page view: cached per site for the cache's TTL. */
export function todaysBillboard(db: Db, cache: BillboardCache, siteId: number, now: Date): Promise<PlacedListing | null> {
  const today = now.toISOString().slice(0, 10);
  return cache.get(`${siteId}:${today}`, () => billboardOn(db, siteId, today));
}
