import type { Db } from '../db/knex.ts';
import { setLaunchSettings, type LaunchSettings } from '../domain/launches/launch-settings.ts';
import { badRequest } from '../errors.ts';

export const SITES_USAGE = `  npm run admin -- sites:set --site K [--free-queue-weeks N] [--free-slots N] [--paid-slots N] [--after-grace note|unlist]`;

/** parseArgs options of the sites:* commands. */
export const SITE_OPTIONS = {
  site: { type: 'string' },
  'free-queue-weeks': { type: 'string' },
  'free-slots': { type: 'string' },
  'paid-slots': { type: 'string' },
  'after-grace': { type: 'string' },
} as const;

export interface SiteFlags {
  site?: string;
  'free-queue-weeks'?: string;
  'free-slots'?: string;
  'paid-slots'?: string;
  'after-grace'?: string;
}

/** Runs a `sites:*` command; returns null for other commands. */
export async function runSiteCommand(db: Db, command: string | undefined, flags: SiteFlags): Promise<number | null> {
  if (command !== 'sites:set') return null;
  if (!flags.site) throw badRequest('usage', `--site is required.\n${SITES_USAGE}`);
  const changes: Partial<LaunchSettings> = {
    free_queue_weeks: count(flags['free-queue-weeks'], '--free-queue-weeks', 52),
    free_slots_per_week: count(flags['free-slots'], '--free-slots', 10_000),
    paid_slots_per_week: count(flags['paid-slots'], '--paid-slots', 10_000),
    badge_after_grace: afterGrace(flags['after-grace']),
  };
  if (Object.values(changes).every((v) => v === undefined)) throw badRequest('usage', `Nothing to set.\n${SITES_USAGE}`);
  const settings = await setLaunchSettings(db, flags.site, changes);
  console.log(
    `site ${flags.site}: free_queue_weeks=${settings.free_queue_weeks} free_slots_per_week=${settings.free_slots_per_week} ` +
      `paid_slots_per_week=${settings.paid_slots_per_week} badge_after_grace=${settings.badge_after_grace}`,
  );
  return 0;
}

function count(value: string | undefined, flag: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,6}$/.test(value) || Number(value) > max)
    throw badRequest('usage', `${flag} must be a whole number from 0 to ${max}, not "${value}".`);
  return Number(value);
}

function afterGrace(value: string | undefined): LaunchSettings['badge_after_grace'] | undefined {
  if (value === undefined) return undefined;
  if (value !== 'note' && value !== 'unlist') throw badRequest('usage', `--after-grace must be note or unlist, not "${value}".`);
  return value;
}
