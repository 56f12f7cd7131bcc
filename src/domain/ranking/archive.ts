import type { Db } from '../../db/knex.ts';
import { isoWeekLabel, isoWeekMonday } from '../../workflows/contracts/weeks.ts';

/**
 * The archive of closed weeks: what the weekly close froze into `weekly_results`, read back by
 * week, by month and by year. A month or a year holds the weeks whose Monday falls in it, so every
 * week belongs to exactly one month and one year, and a listing's place never moves between them.
 */

/** `/launches/2026/48`: a closed week's permanent page, by ISO week-year and week number. */
export function weekArchivePath(monday: string): string {
  const [year, week] = isoWeekLabel(monday).split('-W');
  return `/launches/${Number(year)}/${Number(week)}`;
}

/** The Monday of `/launches/{year}/{week}`, or null when that week does not exist. */
export function weekOfArchivePath(year: string, week: string): string | null {
  if (!/^\d{4}$/.test(year) || !/^\d{1,2}$/.test(week)) return null;
  return isoWeekMonday(`${year}-W${week.padStart(2, '0')}`);
}

/** One listing's place in a closed week. */
export interface ArchivedPlace {
  week_start: string;
  rank: number;
  score: number;
  votes_removed: number;
  votes_discounted: number;
  id: number;
  slug: string;
  name: string;
  headline: string | null;
  image_url: string | null;
}

/** The months of a year (1-12) or the whole year: the Mondays from (inclusive) to (exclusive). */
export function periodWeeks(year: number, month?: number): { from: string; to: string } {
  const day = (y: number, m: number) => new Date(Date.UTC(y, m - 1, 1)).toISOString().slice(0, 10);
  if (month === undefined) return { from: day(year, 1), to: day(year + 1, 1) };
  return { from: day(year, month), to: month === 12 ? day(year + 1, 1) : day(year, month + 1) };
}

const PLACE_COLUMNS = [
  'r.week as week_start',
  'r.rank',
  'r.score',
  'r.votes_removed',
  'r.votes_discounted',
  'l.id',
  'l.slug',
  'l.name',
  'l.headline',
  'l.image_url',
];

const places = (db: Db, siteId: number) =>
  db('weekly_results as r').join('listings as l', 'l.id', 'r.listing_id').where({ 'r.site_id': siteId, 'l.status': 'live' });

/**
 * The best launches of the weeks whose Monday is in [from, to): by score, then by their place in
 * their week, then by week. Listings no longer live are left out (their place stays in the week).
 */
export async function bestOf(db: Db, siteId: number, period: { from: string; to: string }, limit: number): Promise<ArchivedPlace[]> {
  const rows = await places(db, siteId)
    .where('r.week', '>=', period.from)
    .andWhere('r.week', '<', period.to)
    .andWhere('r.score', '>', 0)
    .orderBy([{ column: 'r.score', order: 'desc' }, 'r.rank', 'r.week'])
    .limit(limit)
    .select(PLACE_COLUMNS);
  return rows.map(placeOf);
}

/** The closed weeks in [from, to), oldest first, each with its top three. */
export async function closedWeeks(
  db: Db,
  siteId: number,
  period: { from: string; to: string },
): Promise<{ week_start: string; top: ArchivedPlace[] }[]> {
  const rows = await places(db, siteId)
    .where('r.week', '>=', period.from)
    .andWhere('r.week', '<', period.to)
    .andWhere('r.rank', '<=', 3)
    .orderBy(['r.week', 'r.rank'])
    .select(PLACE_COLUMNS);
  const weeks = new Map<string, ArchivedPlace[]>();
  for (const row of rows.map(placeOf)) weeks.set(row.week_start, [...(weeks.get(row.week_start) ?? []), row]);
  return [...weeks].map(([week_start, top]) => ({ week_start, top }));
}

/** The years and months that have closed weeks, newest first (for the sitemap and the archive's index). */
export async function archivedPeriods(db: Db, siteId: number): Promise<{ weeks: string[]; months: string[]; years: number[] }> {
  const weeks = (await db('weekly_results').where({ site_id: siteId }).distinct('week').orderBy('week', 'desc')).map((r) =>
    dateOnly(r.week),
  );
  const months = [...new Set(weeks.map((w) => w.slice(0, 7)))];
  const years = [...new Set(weeks.map((w) => Number(w.slice(0, 4))))];
  return { weeks, months, years };
}

/** Where a listing placed in the top three of its week, if it did (its page and its badge say so). */
export async function topPlaceOf(db: Db, listingId: number): Promise<{ week_start: string; rank: number } | null> {
  const row = await db('weekly_results')
    .where({ listing_id: listingId })
    .andWhere('rank', '<=', 3)
    .andWhere('score', '>', 0)
    .first('week', 'rank');
  return row ? { week_start: dateOnly(row.week), rank: row.rank } : null;
}

/** A listing's own preview image, if it has one. */
export async function previewImageOf(db: Db, listingId: number): Promise<string | null> {
  return (await db('listings').where({ id: listingId }).first('image_url'))?.image_url ?? null;
}

function placeOf(r: Record<string, unknown>): ArchivedPlace {
  return { ...(r as unknown as ArchivedPlace), week_start: dateOnly(r.week_start as string | Date) };
}

/** A DATE column as YYYY-MM-DD, whichever way the driver returned it. */
function dateOnly(value: string | Date): string {
  return typeof value === 'string' ? value.slice(0, 10) : value.toISOString().slice(0, 10);
}
