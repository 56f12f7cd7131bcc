import type { Db } from '../../db/knex.ts';
import { notFound } from '../../errors/errors.ts';

/** What happens to a live free listing whose badge stays missing beyond the grace period. */
export type AfterGraceAction = 'note' | 'unlist';

/** A site's launch settings (sites.settings), with their defaults (`sites:set` changes them). */
export interface LaunchSettings {
  /** Whole weeks between now and the earliest free launch week. @default 4 */
  free_queue_weeks: number;
  /** Free launches per week. @default 15 */
  free_slots_per_week: number;
  /** Paid launches per week. @default 10 */
  paid_slots_per_week: number;
  /** @default 'note' (the owner is told; nothing else happens) */
  badge_after_grace: AfterGraceAction;
  /**
   * Hours left in the current week below which it is a short week: placements then start next
   * week by default, and the current week is offered with a warning (docs/decisions/short-weeks.md).
   * @default 72 (three days)
   */
  short_week_hours: number;
}

export const LAUNCH_DEFAULTS: LaunchSettings = {
  free_queue_weeks: 4,
  free_slots_per_week: 15,
  paid_slots_per_week: 10,
  badge_after_grace: 'note',
  short_week_hours: 72,
};

/** Launch settings out of a sites.settings object, defaults filled in. */
export function launchSettingsOf(settings: Record<string, unknown> | null | undefined): LaunchSettings {
  const s = settings ?? {};
  const count = (key: keyof LaunchSettings) =>
    Number.isInteger(s[key]) && (s[key] as number) >= 0 ? (s[key] as number) : (LAUNCH_DEFAULTS[key] as number);
  return {
    free_queue_weeks: count('free_queue_weeks'),
    free_slots_per_week: count('free_slots_per_week'),
    paid_slots_per_week: count('paid_slots_per_week'),
    badge_after_grace: s.badge_after_grace === 'unlist' ? 'unlist' : 'note',
    short_week_hours: count('short_week_hours'),
  };
}

/** Current launch settings of a site, read from the database (not the 30 s site cache). */
export async function readLaunchSettings(db: Db, siteId: number): Promise<LaunchSettings> {
  const row = await db('sites').where({ id: siteId }).first('settings');
  if (!row) throw notFound(`Site ${siteId}`);
  return launchSettingsOf(row.settings);
}

/** Merges launch settings into a site's settings (admin `sites:set`); returns the result. */
export async function setLaunchSettings(db: Db, siteKey: string, changes: Partial<LaunchSettings>): Promise<LaunchSettings> {
  const patch = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  const rows = await db('sites')
    .where({ key: siteKey })
    .update({ settings: db.raw('settings || ?::jsonb', [JSON.stringify(patch)]), updated_at: db.fn.now() })
    .returning('settings');
  if (rows.length === 0) throw notFound(`Site "${siteKey}"`);
  return launchSettingsOf(rows[0].settings);
}
