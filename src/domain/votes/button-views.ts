import type { Db } from '../../db/knex.ts';
import { addWeeks, weekStartMs } from '../../workflows/contracts/weeks.ts';

/**
 * Showings of a listing's Vote button to signed-in accounts that have not voted yet, per listing
 * and hour, only while the listing's launch week runs: the traffic that can explain its votes
 * (the burst detector compares the two). Nothing about the viewer is kept. Pages count them in
 * memory with the page counters (src/domain/stats/page-counters.ts), which write them in batches:
 * a page with twenty Vote buttons shown to many people at once would otherwise queue on the
 * same twenty rows' locks.
 */

/** The hour (its start, ms) a showing of the Vote button at `now` counts in; null outside the launch week (not counted). */
export function voteButtonViewHour(launchWeek: string | null, now: Date): number | null {
  if (!launchWeek) return null;
  const t = now.getTime();
  const [start, end] = weekBounds(launchWeek);
  if (t < start || t >= end) return null;
  return t - (t % 3_600_000);
}

/** Start and end (ms) of launch weeks by their Monday: a ranking page asks for the same few weeks a hundred times. */
const bounds = new Map<string, [number, number]>();

function weekBounds(monday: string): [number, number] {
  let known = bounds.get(monday);
  if (!known) {
    if (bounds.size >= 1_000) bounds.clear();
    bounds.set(monday, (known = [weekStartMs(monday), weekStartMs(addWeeks(monday, 1))]));
  }
  return known;
}

/**
 * Adds the batch's showings to their hours' rows: one multi-row upsert, ordered so concurrent
 * processes lock rows in the same order; listings deleted meanwhile are left out by the join.
 */
export async function writeVoteButtonViews(db: Db, batch: { listing_id: number; hour: Date; views: number }[]): Promise<void> {
  await db.raw(
    `INSERT INTO vote_button_views (listing_id, hour, views)
     SELECT b.listing_id, b.hour, b.views
     FROM jsonb_to_recordset(?::jsonb) AS b(listing_id int, hour timestamptz, views int)
     JOIN listings l ON l.id = b.listing_id
     ORDER BY b.listing_id, b.hour
     ON CONFLICT (listing_id, hour) DO UPDATE SET views = vote_button_views.views + excluded.views`,
    [JSON.stringify(batch)],
  );
}
