import type { Db } from '../../db/knex.ts';
import { badRequest, notFound } from '../../errors.ts';
import { checkVatNumber } from '../orders/vat.ts';

/** Who sells on a site, as invoices name them (sites.settings; set with `sites:set`). */
export interface SellerDetails {
  /** The legal name; invoices fall back to the site's name until it is set. */
  seller_name: string | null;
  /** The postal address, lines separated by newlines or ", ". */
  seller_address: string | null;
  /** The seller's VAT ID, checked against `seller_country`. */
  seller_vat_id: string | null;
  seller_country: string;
}

/** Longest accepted values: a legal name and an address fit an invoice header. */
const MAX = { seller_name: 200, seller_address: 500 } as const;

/** Seller details out of a sites.settings object (absent ones null). */
export function sellerOf(settings: Record<string, unknown> | null | undefined): SellerDetails {
  const s = settings ?? {};
  const text = (key: string) => (typeof s[key] === 'string' && s[key] ? (s[key] as string) : null);
  return {
    seller_name: text('seller_name'),
    seller_address: text('seller_address'),
    seller_vat_id: text('seller_vat_id'),
    seller_country: text('seller_country') ?? '',
  };
}

/** A site's seller details read from the table (not the 30 s site cache: an invoice shows what the admin set). */
export async function readSeller(db: Db, siteId: number): Promise<SellerDetails> {
  const row = await db('sites').where({ id: siteId }).first('settings');
  if (!row) throw notFound(`Site ${siteId}`);
  return sellerOf(row.settings);
}

/**
 * Checks and normalises seller details an admin gives: trimmed, within length, the VAT ID valid
 * for the seller's country (format and checksum). An empty value clears the detail.
 */
export function checkSellerChanges(
  changes: Partial<Record<'seller_name' | 'seller_address' | 'seller_vat_id', string>>,
  sellerCountry: string,
): Partial<Record<'seller_name' | 'seller_address' | 'seller_vat_id', string | null>> {
  const out: Partial<Record<'seller_name' | 'seller_address' | 'seller_vat_id', string | null>> = {};
  for (const key of ['seller_name', 'seller_address'] as const) {
    const value = changes[key];
    if (value === undefined) continue;
    const trimmed = value.trim();
    if (trimmed.length > MAX[key]) throw badRequest('usage', `--${key.replace('_', '-')} has at most ${MAX[key]} characters.`);
    out[key] = trimmed || null;
  }
  if (changes.seller_vat_id !== undefined) {
    const raw = changes.seller_vat_id.trim();
    out.seller_vat_id = raw ? vatIdOf(raw, sellerCountry) : null;
  }
  return out;
}

function vatIdOf(raw: string, sellerCountry: string): string {
  try {
    return checkVatNumber(raw, sellerCountry, new Date()).number;
  } catch (err) {
    throw badRequest('usage', `--seller-vat-id: ${(err as Error).message.replace(/billing country/, 'seller country')}`);
  }
}

/** Merges checked seller details into a site's settings (admin `sites:set`); returns the result. */
export async function setSellerDetails(
  db: Db,
  siteKey: string,
  changes: Partial<Record<'seller_name' | 'seller_address' | 'seller_vat_id', string>>,
): Promise<SellerDetails> {
  const row = await db('sites').where({ key: siteKey }).first('settings');
  if (!row) throw notFound(`Site "${siteKey}"`);
  const patch = checkSellerChanges(changes, sellerOf(row.settings).seller_country);
  const [updated] = await db('sites')
    .where({ key: siteKey })
    .update({ settings: db.raw('settings || ?::jsonb', [JSON.stringify(patch)]), updated_at: db.fn.now() })
    .returning('settings');
  return sellerOf(updated.settings);
}
