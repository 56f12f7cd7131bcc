import { archivedPeriods, weekArchivePath } from '../ranking/archive.ts';
import type { Db } from '../../db/knex.ts';
import { CATEGORY_SLUGS } from '../crawl/categories.ts';
import { profileMissing } from '../founders/publish-rules.ts';
import { founderUrls } from '../founders/urls.ts';

/**
 * What visitors browse beyond the ranking: categories with their counts, the launches scheduled
 * for coming weeks, listings as they went live (feeds), a listing's makers and latest updates,
 * and every public address of a site (the sitemap). Plain data; the web layer renders it.
 */

/** A listing as a list shows it. */
export interface ListingCard {
  id: number;
  slug: string;
  name: string;
  headline: string | null;
  logo_url: string | null;
}

const CARD = ['l.id', 'l.slug', 'l.name', 'l.headline', 'l.logo_url'];

export interface CategoryCount {
  slug: string;
  count: number;
}

/** Every category with its number of live listings on the site (zero included), in the crawler's order. */
export async function categoryCounts(db: Db, siteId: number): Promise<CategoryCount[]> {
  const rows: { slug: string; count: number }[] = await db('listings')
    .where({ site_id: siteId, status: 'live' })
    .select(db.raw('unnest(categories) AS slug'), db.raw('count(*)::int AS count'))
    .groupByRaw('1');
  const counts = new Map(rows.map((r) => [r.slug, r.count]));
  return CATEGORY_SLUGS.map((slug) => ({ slug, count: counts.get(slug) ?? 0 }));
}

export interface ScheduledLaunch extends ListingCard {
  /** Monday of the launch week (YYYY-MM-DD). */
  week_start: string;
}

/** Listings scheduled to go live in the weeks starting on or after `fromMonday`, and before `untilMonday`. */
export async function scheduledLaunches(db: Db, siteId: number, fromMonday: string, untilMonday: string): Promise<ScheduledLaunch[]> {
  const rows: (ListingCard & { week_start: string | Date })[] = await db('listings as l')
    .where({ 'l.site_id': siteId, 'l.status': 'scheduled' })
    .where('l.launch_week', '>=', fromMonday)
    .where('l.launch_week', '<', untilMonday)
    .orderBy(['l.launch_week', 'l.id'])
    .select([...CARD, 'l.launch_week as week_start']);
  return rows.map((r) => ({ ...r, week_start: dateOnly(r.week_start) }));
}

export interface LaunchedListing extends ListingCard {
  url: string;
  summary: string | null;
  image_url: string | null;
  categories: string[];
  live_at: Date;
  updated_at: Date;
}

/** The latest live listings by the time they went live, newest first; `category` narrows to one category. */
export async function recentLaunches(db: Db, siteId: number, limit: number, category?: string): Promise<LaunchedListing[]> {
  const q = db('listings as l')
    .where({ 'l.site_id': siteId, 'l.status': 'live' })
    .whereNotNull('l.live_at')
    .orderBy([
      { column: 'l.live_at', order: 'desc' },
      { column: 'l.id', order: 'desc' },
    ])
    .limit(limit)
    .select([...CARD, 'l.url', 'l.summary', 'l.image_url', 'l.categories', 'l.live_at', 'l.updated_at']);
  if (category) q.whereRaw('? = ANY(l.categories)', [category]);
  return q;
}

export interface PublishedUpdate {
  id: number;
  title: string;
  body: string;
  published_at: Date;
  listing: { slug: string; name: string };
}

/** The latest updates of live listings on the site, newest first; `listingId` narrows to one listing. */
export async function latestUpdates(db: Db, siteId: number, limit: number, listingId?: number): Promise<PublishedUpdate[]> {
  const q = db('listing_updates as u')
    .join('listings as l', 'l.id', 'u.listing_id')
    .where({ 'u.site_id': siteId, 'l.status': 'live' })
    .orderBy([
      { column: 'u.published_at', order: 'desc' },
      { column: 'u.id', order: 'desc' },
    ])
    .limit(limit)
    .select('u.id', 'u.title', 'u.body', 'u.published_at', 'l.slug', 'l.name');
  if (listingId !== undefined) q.where('u.listing_id', listingId);
  const rows: { id: number; title: string; body: string; published_at: Date; slug: string; name: string }[] = await q;
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    body: r.body,
    published_at: r.published_at,
    listing: { slug: r.slug, name: r.name },
  }));
}

export interface Maker {
  user_id: number;
  display_name: string;
  page_path: string;
  photo_path: string | null;
}

/** The listing's maker: its owner, when their founder profile is complete (the bar of a public founder page). */
export async function listingMakers(db: Db, listingId: number): Promise<Maker[]> {
  const row = await db('listings as l')
    .join('founder_profiles as p', 'p.user_id', 'l.owner_id')
    .leftJoin('founder_photos as ph', 'ph.user_id', 'p.user_id')
    .where('l.id', listingId)
    .first('p.user_id', 'p.display_name', 'p.bio', 'p.links', 'ph.etag as photo_etag');
  if (!row) return [];
  const facts = { display_name: row.display_name, bio: row.bio, links: row.links as string[], has_photo: row.photo_etag !== null };
  if (profileMissing(facts, '').length > 0) return [];
  return [
    {
      user_id: row.user_id,
      display_name: row.display_name!,
      page_path: founderUrls.founderPage('', row.user_id),
      photo_path: row.photo_etag ? founderUrls.photo('', row.user_id, row.photo_etag) : null,
    },
  ];
}

/** One address of the sitemap: a site-relative path and when its content last changed. */
export interface SitemapEntry {
  path: string;
  lastmod: Date | null;
}

/**
 * Every public page of the site worth finding: the front page, /launches and /categories, each
 * live listing, each category with live listings, each week with live launches, each published
 * story of a live listing, and each complete founder profile of a live listing's owner.
 */
export async function sitemapEntries(db: Db, siteId: number): Promise<SitemapEntry[]> {
  const live = () => db('listings as l').where({ 'l.site_id': siteId, 'l.status': 'live' });
  const [listings, categories, weeks, stories, founders, archive] = await Promise.all([
    live().orderBy('l.id').select('l.slug', 'l.updated_at') as Promise<{ slug: string; updated_at: Date }[]>,
    live()
      .select(db.raw('unnest(l.categories) AS slug'), db.raw('max(l.updated_at) AS lastmod'))
      .groupByRaw('1')
      .orderBy('slug') as Promise<{ slug: string; lastmod: Date }[]>,
    live()
      .whereNotNull('l.launch_week')
      .groupBy('l.launch_week')
      .orderBy('l.launch_week')
      .select('l.launch_week as week', db.raw('max(l.updated_at) AS lastmod')) as Promise<{ week: string | Date; lastmod: Date }[]>,
    live()
      .join('founder_stories as s', 's.listing_id', 'l.id')
      .whereNotNull('s.published_at')
      .orderBy('l.id')
      .select('l.slug', 's.updated_at') as Promise<{ slug: string; updated_at: Date }[]>,
    live()
      .join('founder_profiles as p', 'p.user_id', 'l.owner_id')
      .join('founder_photos as ph', 'ph.user_id', 'p.user_id')
      .distinct('p.user_id', 'p.display_name', 'p.bio', 'p.links', 'p.updated_at')
      .orderBy('p.user_id') as Promise<
      { user_id: number; display_name: string | null; bio: string | null; links: string[]; updated_at: Date }[]
    >,
    archivedPeriods(db, siteId),
  ]);
  const closed = new Set(archive.weeks);
  const known = new Set<string>(CATEGORY_SLUGS);
  const newest = listings.reduce<Date | null>((a, l) => (a && a > l.updated_at ? a : l.updated_at), null);
  return [
    { path: '/', lastmod: newest },
    { path: '/launches', lastmod: newest },
    { path: '/categories', lastmod: newest },
    ...listings.map((l) => ({ path: `/listings/${encodeURIComponent(l.slug)}`, lastmod: l.updated_at })),
    ...categories.filter((c) => known.has(c.slug)).map((c) => ({ path: `/categories/${c.slug}`, lastmod: c.lastmod })),
    // A closed week's page is its archive page; the weeks still running or to come are on /launches.
    ...weeks.filter((w) => !closed.has(dateOnly(w.week))).map((w) => ({ path: `/launches?week=${dateOnly(w.week)}`, lastmod: w.lastmod })),
    ...archive.weeks.map((w) => ({ path: weekArchivePath(w), lastmod: null })),
    ...(archive.weeks.length ? [{ path: '/best', lastmod: null }] : []),
    ...archive.years.map((y) => ({ path: `/best/${y}`, lastmod: null })),
    ...archive.months.map((m) => ({ path: `/best/${Number(m.slice(0, 4))}/${Number(m.slice(5))}`, lastmod: null })),
    ...stories.map((s) => ({ path: `/stories/${encodeURIComponent(s.slug)}`, lastmod: s.updated_at })),
    ...founders
      .filter((f) => profileMissing({ display_name: f.display_name, bio: f.bio, links: f.links, has_photo: true }, '').length === 0)
      .map((f) => ({ path: `/founders/${f.user_id}`, lastmod: f.updated_at })),
  ];
}

/** A DATE column as YYYY-MM-DD, whichever way the driver returned it. */
function dateOnly(value: string | Date): string {
  return typeof value === 'string' ? value.slice(0, 10) : value.toISOString().slice(0, 10);
}
