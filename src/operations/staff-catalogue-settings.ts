import { z } from 'zod';
import { readLaunchSettings, setLaunchSettings } from '../domain/launches/launch-settings.ts';
import { missingSellerDetails, readSeller, setSellerDetails } from '../domain/sites/seller.ts';
import { announceSiteChange } from '../domain/sites/sites.ts';
import { badRequest } from '../errors/errors.ts';
import type { Db } from '../db/knex.ts';
import { defineOperation, type OperationContext } from './operation.ts';
import { asStaff, audit, STAFF_ERROR_CODES } from './staff.ts';

/** The site settings that are the catalogue's: paid launches per week, and the seller invoices name. */
const Settings = z.object({
  paid_slots_per_week: z.int().describe('Paid launches sold per week'),
  seller_name: z.string().nullable().describe('The legal name on invoices (null: the site’s name)'),
  seller_address: z.string().nullable(),
  seller_vat_id: z.string().nullable(),
  seller_country: z.string().describe('The seller’s country (set with the site; not changed here)'),
  missing_for_invoices: z.array(z.string()).describe('Seller details invoices still lack; real payments wait for them'),
});

async function readSettings(db: Db, siteId: number): Promise<z.infer<typeof Settings>> {
  const [launch, seller] = await Promise.all([readLaunchSettings(db, siteId), readSeller(db, siteId)]);
  return { paid_slots_per_week: launch.paid_slots_per_week, ...seller, missing_for_invoices: missingSellerDetails(seller) };
}

export const staffGetCatalogueSettingsOp = defineOperation({
  name: 'staff_get_catalogue_settings',
  summary: 'Site team: paid launches per week and the seller on invoices',
  description: 'For admins; the read is recorded in the staff audit log.',
  method: 'GET',
  path: '/staff/catalogue-settings',
  scope: 'staff:catalogue',
  idempotent: false,
  readOnly: true,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({}),
  output: Settings,
  async handler(input, ctx) {
    const actor = await asStaff(ctx, ['admin']);
    const settings = await readSettings(ctx.db, ctx.site.id);
    await audit(ctx, actor, { operation: 'staff_get_catalogue_settings', input });
    return settings;
  },
});

const sellerText = (max: number) => z.string().max(max).optional().describe('An empty value clears it');

const SettingsChange = z.object({
  paid_slots_per_week: z.int().min(0).max(10_000).optional(),
  seller_name: sellerText(1000),
  seller_address: sellerText(2000),
  seller_vat_id: sellerText(40),
});

export const staffSetCatalogueSettingsOp = defineOperation({
  name: 'staff_set_catalogue_settings',
  summary: 'Site team: set paid launches per week and the seller on invoices',
  description:
    'Changes what is given and nothing else. Paid launches per week count from the next checkout on (launches sold stay). The seller’s ' +
    'VAT ID is checked for the seller’s country; an empty value clears a detail. Invoices issued keep the seller they named. ' +
    'For admins; recorded in the staff audit log with the values before and after.',
  method: 'PATCH',
  path: '/staff/catalogue-settings',
  scope: 'staff:catalogue',
  idempotent: false,
  readOnly: false,
  errorCodes: [...STAFF_ERROR_CODES, 'nothing_to_change', 'usage'],
  tags: ['staff'],
  input: SettingsChange,
  output: Settings,
  handler: (input, ctx) => setSettings(input, ctx),
});

type SettingsInput = z.output<typeof SettingsChange>;

async function setSettings(input: SettingsInput, ctx: OperationContext) {
  const actor = await asStaff(ctx, ['admin']);
  const { paid_slots_per_week: slots, ...seller } = input;
  const sellerChanges = Object.fromEntries(Object.entries(seller).filter(([, v]) => v !== undefined));
  if (slots === undefined && !Object.keys(sellerChanges).length)
    throw badRequest('nothing_to_change', 'Give at least one setting to change.');
  const after = await ctx.db.transaction(async (trx) => {
    const before = await readSettings(trx, ctx.site.id);
    // The seller's checks (lengths, the VAT ID for the seller's country) are the command line's own.
    if (Object.keys(sellerChanges).length) await setSellerDetails(trx, ctx.site.key, sellerChanges);
    if (slots !== undefined) await setLaunchSettings(trx, ctx.site.key, { paid_slots_per_week: slots });
    const now = await readSettings(trx, ctx.site.id);
    const target = { kind: 'site', id: ctx.site.key };
    await audit(ctx, actor, { operation: 'staff_set_catalogue_settings', input, target, before, after: now }, trx);
    await announceSiteChange(trx, ctx.site.id);
    return now;
  });
  ctx.caches.sites.clear();
  return after;
}

export const staffCatalogueSettingsOperations = [staffGetCatalogueSettingsOp, staffSetCatalogueSettingsOp] as const;
