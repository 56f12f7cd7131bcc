import { isoWeekLabel } from '../../workflows/contracts/weeks.ts';

/**
 * Weeks and days as people read them, the same on pages, in mails, on invoices and in the admin
 * shell: `21 Dec 2026`, `Week 52 · 21–27 Dec 2026`, `weeks of 21 Dec and 28 Dec 2026`. The API
 * keeps ISO week labels; these are for sentences.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY_MS = 86_400_000;

const parts = (date: string) => {
  const d = new Date(`${date}T00:00:00Z`);
  return { day: d.getUTCDate(), month: MONTHS[d.getUTCMonth()]!, year: d.getUTCFullYear() };
};

/** `21 Dec 2026` for a date (YYYY-MM-DD). */
export function dayText(date: string): string {
  const { day, month, year } = parts(date);
  return `${day} ${month} ${year}`;
}

/** `21–27 Dec 2026`, `28 Dec 2026 – 3 Jan 2027`, `30 Nov – 6 Dec 2026` for the week starting on `monday` (YYYY-MM-DD). */
export function weekDates(monday: string): string {
  const start = parts(monday);
  const end = parts(new Date(Date.parse(`${monday}T00:00:00Z`) + 6 * DAY_MS).toISOString().slice(0, 10));
  if (start.year !== end.year) return `${start.day} ${start.month} ${start.year} – ${end.day} ${end.month} ${end.year}`;
  if (start.month !== end.month) return `${start.day} ${start.month} – ${end.day} ${end.month} ${end.year}`;
  return `${start.day}–${end.day} ${end.month} ${end.year}`;
}

/** `Week 52 · 21–27 Dec 2026`. */
export function weekText(monday: string): string {
  return `Week ${Number(isoWeekLabel(monday).slice(-2))} · ${weekDates(monday)}`;
}

/** `week of 21 Dec 2026`. */
export const weekOfText = (monday: string) => `week of ${dayText(monday)}`;

/**
 * The weeks a placement covers, by their Mondays in order: `week of 21 Dec 2026`,
 * `weeks of 21 Dec and 28 Dec 2026`, `weeks of 21 Dec, 28 Dec 2026 and 4 Jan 2027`; more than four
 * weeks read as a range, `12 weeks, from the week of 21 Dec 2026 to the week of 8 Mar 2027`.
 */
export function weeksText(mondays: string[]): string {
  if (mondays.length === 0) return 'no weeks';
  if (mondays.length === 1) return weekOfText(mondays[0]!);
  if (mondays.length > 4)
    return `${mondays.length} weeks, from the week of ${dayText(mondays[0]!)} to the week of ${dayText(mondays.at(-1)!)}`;
  // The year is said once for the weeks of one year: after the last Monday of that year.
  const words = mondays.map((monday, i) => {
    const { day, month, year } = parts(monday);
    const next = mondays[i + 1];
    return next === undefined || parts(next).year !== year ? `${day} ${month} ${year}` : `${day} ${month}`;
  });
  return `weeks of ${words.slice(0, -1).join(', ')} and ${words.at(-1)!}`;
}

/** `29 hours`, `3 days and 5 hours`, `40 minutes`: how long until a moment, in words. */
export function durationText(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  const hours = Math.floor(minutes / 60);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (hours < 1) return plural(minutes, 'minute');
  if (hours < 48) return plural(hours, 'hour');
  const days = Math.floor(hours / 24);
  const rest = hours % 24;
  return rest ? `${plural(days, 'day')} and ${plural(rest, 'hour')}` : plural(days, 'day');
}
