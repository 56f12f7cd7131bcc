/**
 * THE ISO-week calendar, pure: the domain, the search engines and the workflows all import it, so
 * it lives with the workflow contracts, which import nothing with I/O. A week is keyed by
 * its Monday (`YYYY-MM-DD`, UTC) and starts at Monday 00:00:00.000 UTC; Sunday 23:59:59.999 UTC
 * still belongs to the week before. Labels are ISO 8601 week dates (`2026-W48`); week 1 is the
 * week that holds 4 January, and a year has week 53 only when it is long. Correct for every
 * four-digit year (JavaScript's `Date.UTC` maps years 0–99 to 1900–1999; nothing here uses it on
 * a year).
 */

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

/** `YYYY-MM-DD` of an instant (years 0000–9999 have four digits in toISOString). */
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The instant of 00:00 UTC on a day of any year 0–9999. */
function utcDay(year: number, monthIndex: number, day: number): number {
  const at = new Date(0);
  at.setUTCFullYear(year, monthIndex, day);
  return at.getTime();
}

/** Monday 00:00 UTC of the ISO week that holds `at`, as YYYY-MM-DD. */
export function isoWeekStart(at: Date): string {
  const day = (at.getUTCDay() + 6) % 7; // Monday = 0
  return dateOf(utcDay(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() - day));
}

/** The instant (ms since the epoch) a week starts: Monday 00:00 UTC. */
export function weekStartMs(monday: string): number {
  return Date.parse(`${monday}T00:00:00.000Z`);
}

/**
 * The instant a launch week ends: the next Monday 00:00 UTC. Its SQL twin is the database
 * function `launch_week_end(date)`; the two must agree.
 */
export function launchWeekEnd(monday: string): Date {
  return new Date(weekStartMs(monday) + WEEK_MS);
}

/** ISO week label (e.g. 2026-W48) of a Monday date string. */
export function isoWeekLabel(monday: string): string {
  const thursday = new Date(weekStartMs(monday) + 3 * DAY_MS);
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - utcDay(year, 0, 1)) / WEEK_MS) + 1;
  return `${String(year).padStart(4, '0')}-W${String(week).padStart(2, '0')}`;
}

/**
 * Pattern of an ISO week label as the API and the web pages take it: years from 2000 (no launch
 * week is older). `isoWeekMonday` itself reads any four-digit year.
 */
export const ISO_WEEK_PATTERN = /^([2-9]\d{3})-W(0[1-9]|[1-4]\d|5[0-3])$/;

/** Monday (YYYY-MM-DD) of an ISO week label such as 2026-W48, or null when no such week exists. */
export function isoWeekMonday(label: string): string | null {
  const match = /^(\d{4})-W(\d{2})$/.exec(label);
  if (!match) return null;
  const [year, week] = [Number(match[1]), Number(match[2])];
  if (week < 1 || week > 53) return null;
  // Week 1 is the week holding 4 January.
  const monday = addWeeks(isoWeekStart(new Date(utcDay(year, 0, 4))), week - 1);
  // W53 exists only in long years; otherwise it would name week 1 of the next year.
  return isoWeekLabel(monday) === label ? monday : null;
}

/** The Monday `weeks` weeks after (or before, when negative) the given Monday. */
export function addWeeks(monday: string, weeks: number): string {
  return dateOf(weekStartMs(monday) + weeks * WEEK_MS);
}

/** Whether `value` is a real calendar date `YYYY-MM-DD` that falls on a Monday. */
export function isMonday(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const ms = weekStartMs(value);
  return Number.isFinite(ms) && dateOf(ms) === value && new Date(ms).getUTCDay() === 1;
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
