import { isoWeekLabel } from '../operations/read-models/launches.ts';

/** Launch weeks as people read them: `Week 52 · 21–27 Dec 2026` (the ISO week and its Monday to Sunday). */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY_MS = 86_400_000;

/** `21 Dec 2026` for a date (YYYY-MM-DD). */
export function dayText(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]!} ${d.getUTCFullYear()}`;
}

/** `21–27 Dec 2026`, `28 Dec 2026 – 3 Jan 2027`, `30 Nov – 6 Dec 2026` for the week starting on `monday` (YYYY-MM-DD). */
export function weekDates(monday: string): string {
  const start = new Date(`${monday}T00:00:00Z`);
  const end = new Date(start.getTime() + 6 * DAY_MS);
  const day = (d: Date) => d.getUTCDate();
  const month = (d: Date) => MONTHS[d.getUTCMonth()]!;
  const year = (d: Date) => d.getUTCFullYear();
  if (year(start) !== year(end)) return `${day(start)} ${month(start)} ${year(start)} – ${day(end)} ${month(end)} ${year(end)}`;
  if (month(start) !== month(end)) return `${day(start)} ${month(start)} – ${day(end)} ${month(end)} ${year(end)}`;
  return `${day(start)}–${day(end)} ${month(end)} ${year(end)}`;
}

/** `Week 52 · 21–27 Dec 2026`. */
export function weekText(monday: string): string {
  return `Week ${Number(isoWeekLabel(monday).slice(-2))} · ${weekDates(monday)}`;
}
