import { isoWeekLabel, isoWeekStart } from '../ranking/weeks.ts';

/**
 * Launch-week arithmetic, pure: a week is keyed by its Monday (`YYYY-MM-DD`, UTC) and starts at
 * Monday 00:00:00.000 UTC; Sunday 23:59:59.999 UTC still belongs to the week before.
 */

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

export { isoWeekLabel, isoWeekStart };

/** The instant (ms since the epoch) a launch week starts: Monday 00:00 UTC. */
export function weekStartMs(monday: string): number {
  return Date.parse(`${monday}T00:00:00.000Z`);
}

/** The Monday `n` weeks after (or before, when negative) the given Monday. */
export function addWeeks(monday: string, n: number): string {
  return new Date(weekStartMs(monday) + n * WEEK_MS).toISOString().slice(0, 10);
}

/** Whether `value` is a real calendar date `YYYY-MM-DD` that falls on a Monday. */
export function isMonday(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const ms = weekStartMs(value);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === value && new Date(ms).getUTCDay() === 1;
}

/** The Monday of an ISO week label (`2026-W52`), or null when the label names no week. */
export function mondayOfWeekLabel(label: string): string | null {
  const m = /^(\d{4})-W(\d{2})$/.exec(label);
  if (!m) return null;
  const [year, week] = [Number(m[1]), Number(m[2])];
  // ISO week 1 holds 4 January; its Monday is the start of week-numbering year `year`.
  const jan4 = new Date(Date.UTC(year, 0, 4));
  const monday = addWeeks(isoWeekStart(jan4), week - 1);
  return week >= 1 && isoWeekLabel(monday) === label ? monday : null;
}

/** Milliseconds from `nowMs` until the week starts (0 once it has started). */
export function msUntilWeekStart(monday: string, nowMs: number): number {
  return Math.max(0, weekStartMs(monday) - nowMs);
}

/** Whether the week holding `nowMs` is this Monday's week or a later one (the launch is due). */
export function weekHasStarted(monday: string, nowMs: number): boolean {
  return nowMs >= weekStartMs(monday);
}

/** The earliest Monday a free listing may launch in: `queueWeeks` whole weeks after this one. */
export function earliestFreeWeek(now: Date, queueWeeks: number): string {
  return addWeeks(isoWeekStart(now), queueWeeks);
}
