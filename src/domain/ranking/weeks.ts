/** Monday 00:00 UTC of the ISO week that holds `at`, as YYYY-MM-DD. */
export function isoWeekStart(at: Date): string {
  const day = (at.getUTCDay() + 6) % 7; // Monday = 0
  const monday = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() - day));
  return monday.toISOString().slice(0, 10);
}

/** ISO week label (e.g. 2026-W48) of a Monday date string. */
export function isoWeekLabel(monday: string): string {
  const date = new Date(`${monday}T00:00:00Z`);
  const thursday = new Date(date.getTime() + 3 * 86_400_000);
  const yearStart = Date.UTC(thursday.getUTCFullYear(), 0, 1);
  const week = Math.floor((thursday.getTime() - yearStart) / 86_400_000 / 7) + 1;
  return `${thursday.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

/** Pattern of an ISO week label as the API takes it. */
export const ISO_WEEK_PATTERN = /^([2-9]\d{3})-W(0[1-9]|[1-4]\d|5[0-3])$/;

/** Monday (YYYY-MM-DD) of an ISO week label such as 2026-W48, or null when no such week exists. */
export function isoWeekMonday(label: string): string | null {
  const match = ISO_WEEK_PATTERN.exec(label);
  if (!match) return null;
  const [year, week] = [Number(match[1]), Number(match[2])];
  // Date.UTC maps years 0–99 to 1900–1999; no launch week is that old anyway.
  if (year < 2000 || week < 1 || week > 53) return null;
  // Week 1 is the week holding 4 January.
  const firstMonday = isoWeekStart(new Date(Date.UTC(year, 0, 4)));
  const monday = new Date(Date.parse(`${firstMonday}T00:00:00Z`) + (week - 1) * 7 * 86_400_000).toISOString().slice(0, 10);
  // W53 exists only in long years; otherwise it would name week 1 of the next year.
  return isoWeekLabel(monday) === label ? monday : null;
}

/** The Monday `weeks` weeks after (or before, when negative) the given Monday. */
export function addWeeks(monday: string, weeks: number): string {
  return new Date(Date.parse(`${monday}T00:00:00Z`) + weeks * 7 * 86_400_000).toISOString().slice(0, 10);
}
