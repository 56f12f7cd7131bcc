import type { Db } from '../../db/knex.ts';
import { AppError, invalidField, notFound } from '../../errors/errors.ts';
import { checkVatNumber, isEuCountry } from '../orders/vat.ts';

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

const WORDS = { seller_name: 'name', seller_address: 'address' } as const;

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
    if (trimmed.length > MAX[key])
      throw invalidField(
        key,
        `The seller’s ${WORDS[key]} has at most ${MAX[key]} characters.`,
        `The seller’s ${WORDS[key]} has at most ${MAX[key]} characters.`,
      );
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
    const message = `The seller’s VAT ID: ${(err as Error).message.replace(/billing country/, 'seller country')}`;
    throw invalidField('seller_vat_id', message, message);
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

/** The seller an issued invoice names, kept on the order as it was at issue. */
export interface InvoiceSeller {
  name: string;
  address: string | null;
  vat_id: string | null;
  country: string;
}

/** The snapshot taken when an invoice is issued: the legal name, else the site's name. */
export const invoiceSellerOf = (seller: SellerDetails, siteName: string): InvoiceSeller => ({
  name: seller.seller_name ?? siteName,
  address: seller.seller_address,
  vat_id: seller.seller_vat_id,
  country: seller.seller_country,
});

/** `INV-MAIN-000042`: the site's key keeps two sites' numbers apart when one seller runs both. */
export const invoiceLabel = (siteKey: string, invoiceNumber: number) =>
  `INV-${siteKey.toUpperCase()}-${String(invoiceNumber).padStart(6, '0')}`;

/**
 * The settings an invoice a business can file still lacks: the legal name and the address, and
 * the VAT ID where the site charges VAT (its seller country is an EU member state).
 */
export function missingSellerDetails(seller: SellerDetails): ('seller_name' | 'seller_address' | 'seller_vat_id')[] {
  const missing: ('seller_name' | 'seller_address' | 'seller_vat_id')[] = [];
  if (!seller.seller_name) missing.push('seller_name');
  if (!seller.seller_address) missing.push('seller_address');
  if (!seller.seller_vat_id && isEuCountry(seller.seller_country)) missing.push('seller_vat_id');
  return missing;
}

/** Each site whose invoices lack seller details, with what is missing (the start-up notice). */
export async function sitesMissingSeller(db: Db): Promise<{ site: string; missing: string[] }[]> {
  const sites = await db('sites').orderBy('id').select('key', 'settings');
  return sites
    .map((s) => ({ site: s.key as string, missing: missingSellerDetails(sellerOf(s.settings)) }))
    .filter((s) => s.missing.length > 0);
}

/**
 * Real money (any provider but the test provider) is taken only once the site's invoices can
 * name the seller in full: 503 `seller_details_missing` otherwise, naming the settings to set.
 * The test provider moves no money, so it works with the defaults.
 */
export async function requireSellerForPayments(db: Db, provider: string | null, siteId: number): Promise<void> {
  if (provider === null || provider === 'test') return;
  const missing = missingSellerDetails(await readSeller(db, siteId));
  if (!missing.length) return;
  throw new AppError(
    'seller_details_missing',
    `This site takes no payments until its operator sets the seller's ${missing.map((m) => DETAIL_WORDS[m]).join(', ')} for invoices. Nothing was charged.`,
  );
}

const DETAIL_WORDS = { seller_name: 'legal name', seller_address: 'address', seller_vat_id: 'VAT ID' } as const;
