import type { Db } from '../db/knex.ts';
import { setLaunchSettings, type LaunchSettings } from '../domain/launches/launch-settings.ts';
import { setSellerDetails, type SellerDetails } from '../domain/sites/seller.ts';
import { badRequest } from '../errors/errors.ts';

export const SITES_USAGE = `  npm run admin -- sites:set --site K [--free-queue-weeks N] [--free-slots N] [--paid-slots N] [--after-grace note|unlist]
      [--short-week-hours H]   (below H hours left in a week, placements start next week by default; 0 to 167)
      [--seller-name N] [--seller-address A] [--seller-vat-id V]   (invoices' seller; an empty value clears it)`;

/** parseArgs options of the sites:* commands. */
export const SITE_OPTIONS = {
  site: { type: 'string' },
  'free-queue-weeks': { type: 'string' },
  'free-slots': { type: 'string' },
  'paid-slots': { type: 'string' },
  'after-grace': { type: 'string' },
  'short-week-hours': { type: 'string' },
  'seller-name': { type: 'string' },
  'seller-address': { type: 'string' },
  'seller-vat-id': { type: 'string' },
} as const;

export interface SiteFlags {
  site?: string;
  'free-queue-weeks'?: string;
  'free-slots'?: string;
  'paid-slots'?: string;
  'after-grace'?: string;
  'short-week-hours'?: string;
  'seller-name'?: string;
  'seller-address'?: string;
  'seller-vat-id'?: string;
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
    short_week_hours: count(flags['short-week-hours'], '--short-week-hours', 167),
  };
  const seller = {
    seller_name: flags['seller-name'],
    seller_address: flags['seller-address'],
    seller_vat_id: flags['seller-vat-id'],
  };
  const setsLaunch = Object.values(changes).some((v) => v !== undefined);
  const setsSeller = Object.values(seller).some((v) => v !== undefined);
  if (!setsLaunch && !setsSeller) throw badRequest('usage', `Nothing to set.\n${SITES_USAGE}`);
  // The seller's details are checked (VAT ID included) before anything is written.
  if (setsSeller) console.log(sellerLine(flags.site, await setSellerDetails(db, flags.site, definedOnly(seller))));
  if (setsLaunch) {
    const settings = await setLaunchSettings(db, flags.site, changes);
    console.log(
      `site ${flags.site}: free_queue_weeks=${settings.free_queue_weeks} free_slots_per_week=${settings.free_slots_per_week} ` +
        `paid_slots_per_week=${settings.paid_slots_per_week} badge_after_grace=${settings.badge_after_grace} ` +
        `short_week_hours=${settings.short_week_hours}`,
    );
  }
  return 0;
}

const sellerLine = (site: string, s: SellerDetails) =>
  `site ${site}: seller_name=${JSON.stringify(s.seller_name)} seller_address=${JSON.stringify(s.seller_address)} ` +
  `seller_vat_id=${JSON.stringify(s.seller_vat_id)} seller_country=${s.seller_country}`;

const definedOnly = <T extends Record<string, string | undefined>>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: string };

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
