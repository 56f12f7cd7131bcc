import type { Db } from '../../db/knex.ts';
import { readLaunchSettings } from './launch-settings.ts';
import { paidHeldByWeek } from './paid-capacity.ts';
import { addWeeks, isoWeekLabel, isoWeekStart } from '../../workflows/contracts/weeks.ts';

/** Weeks list_launch_weeks shows: this one and the next eleven. */
export const LISTED_WEEKS = 12;

export type LaunchWeekState = 'open' | 'full' | 'live' | 'closed';

/** One week of the transparent queue. */
export interface LaunchWeek {
  week: string;
  week_start: string;
  free_slots: number;
  free_taken: number;
  paid_slots: number;
  /** Paid slots taken: booked by paid launches or held by checkouts (so `paid_slots - paid_taken` are free). */
  paid_taken: number;
  /** Of paid_taken, the slots held by checkouts that can still be paid. */
  paid_held: number;
  state: LaunchWeekState;
}

/**
 * State of a week: `closed` once it ended, `live` while it runs, otherwise `full` when neither a
 * free nor a paid slot is left (held paid slots count as taken), else `open`.
 */
export function weekState(week: Omit<LaunchWeek, 'state' | 'week' | 'paid_held'>, now: Date): LaunchWeekState {
  const current = isoWeekStart(now);
  if (week.week_start < current) return 'closed';
  if (week.week_start === current) return 'live';
  return week.free_taken >= week.free_slots && week.paid_taken >= week.paid_slots ? 'full' : 'open';
}

/** The next 12 launch weeks of a site (this week first) with their slots and how many are taken or held. */
export async function listLaunchWeeks(db: Db, siteId: number, now: Date): Promise<LaunchWeek[]> {
  const first = isoWeekStart(now);
  const last = addWeeks(first, LISTED_WEEKS - 1);
  const [settings, held, rows] = await Promise.all([
    readLaunchSettings(db, siteId),
    paidHeldByWeek(db, siteId, first, last),
    db('launch_slots')
      .where({ site_id: siteId })
      .whereBetween('week_start', [first, last])
      .groupBy('week_start')
      .select(
        'week_start',
        db.raw(`count(*) FILTER (WHERE kind = 'free')::int AS free_taken`),
        db.raw(`count(*) FILTER (WHERE kind = 'paid')::int AS paid_taken`),
      ) as Promise<{ week_start: string; free_taken: number; paid_taken: number }[]>,
  ]);
  const taken = new Map(rows.map((r) => [r.week_start, r]));
  return Array.from({ length: LISTED_WEEKS }, (_, i) => {
    const weekStart = addWeeks(first, i);
    const counts = {
      week_start: weekStart,
      free_slots: settings.free_slots_per_week,
      free_taken: taken.get(weekStart)?.free_taken ?? 0,
      paid_slots: settings.paid_slots_per_week,
      paid_taken: (taken.get(weekStart)?.paid_taken ?? 0) + (held.get(weekStart) ?? 0),
      paid_held: held.get(weekStart) ?? 0,
    };
    return { week: isoWeekLabel(weekStart), ...counts, state: weekState(counts, now) };
  });
}
