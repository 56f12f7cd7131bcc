import type { Db } from '../db/knex.ts';
import { sitesMissingSeller } from '../domain/sites/seller.ts';

const FLAGS: Record<string, string> = {
  seller_name: '--seller-name "Legal Name Ltd"',
  seller_address: '--seller-address "Street, City, Postcode"',
  seller_vat_id: '--seller-vat-id IE1234567X',
};

/**
 * The start-up lines about sites whose invoices lack the seller's details (none when every site
 * has them): which settings to set, the command that sets them, and what stays refused until then.
 */
export async function sellerNotice(db: Db, provider: 'test' | 'stripe' | null): Promise<string[]> {
  const lines: string[] = [];
  for (const { site, missing } of await sitesMissingSeller(db)) {
    const effect =
      provider === 'test'
        ? 'test payments work; a real provider (PAYMENT_PROVIDER=stripe) refuses payments until they are set'
        : 'payments are refused until they are set';
    lines.push(
      `  Invoices     site ${site} has no ${missing.join(', ')}: ${effect}. Set them with`,
      `               npm run admin -- sites:set --site ${site} ${missing.map((m) => FLAGS[m]).join(' ')}`,
    );
  }
  return lines;
}
