import type { Db } from '../../db/knex.ts';
import { readLaunchSettings } from './launch-settings.ts';
import { addWeeks, earliestFreeWeek } from '../../workflows/contracts/weeks.ts';

/** How far ahead the preview looks, as far as bookFreeSlot does. */
const LOOK_AHEAD_WEEKS = 104;

/**
 * The week a free launch of this site would get if its conditions were met now: the earliest week
 * at least `free_queue_weeks` out with a free slot left (what bookFreeSlot books, read without
 * locking). Null when no week in reach has room. A preview only: the slot is taken when booked.
 */
export async function freeWeekPreview(db: Db, siteId: number, now: Date): Promise<string | null> {
  const settings = await readLaunchSettings(db, siteId);
  if (settings.free_slots_per_week <= 0) return null;
  const from = earliestFreeWeek(now, settings.free_queue_weeks);
  const until = addWeeks(from, LOOK_AHEAD_WEEKS - 1);
  const full = new Set(
    (
      (await db('launch_slots')
        .where({ site_id: siteId, kind: 'free' })
        .whereBetween('week_start', [from, until])
        .groupBy('week_start')
        .havingRaw('count(*) >= ?', [settings.free_slots_per_week])
        .select('week_start')) as { week_start: string }[]
    ).map((r) => r.week_start),
  );
  for (let i = 0; i < LOOK_AHEAD_WEEKS; i++) {
    const monday = addWeeks(from, i);
    if (!full.has(monday)) return monday;
  }
  return null;
}
