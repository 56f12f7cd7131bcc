import type { Db } from '../../db/knex.ts';

export interface Product {
  key: string;
  name: string;
  description: string;
  price_cents: number;
  currency: 'USD';
  needs_listing: boolean;
  options: Record<string, unknown>;
}

/** The site's active products with the admin's current prices (USD cents, excluding VAT). */
export async function listProducts(db: Db, siteId: number): Promise<Product[]> {
  const rows = await db('products')
    .where({ site_id: siteId, active: true })
    .orderBy('id')
    .select('key', 'name', 'description', 'price_cents', 'needs_listing', 'options');
  return rows.map((r) => ({ ...r, currency: 'USD' as const }));
}
