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
