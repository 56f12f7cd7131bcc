import { cacheOf } from '../../cache/ttl-cache.ts';
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
export function listProducts(db: Db, siteId: number, cacheTtlMs: number): Promise<Product[]> {
  // Read on every page view; an admin's price change shows within the TTL (checkout reads the table).
  return cacheOf<Product[]>(db, 'products', { ttlMs: cacheTtlMs, maxEntries: 100 }).get(String(siteId), () =>
    readProducts(db, siteId),
  );
}

async function readProducts(db: Db, siteId: number): Promise<Product[]> {
  const rows = await db('products')
    .where({ site_id: siteId, active: true })
    .orderBy('id')
    .select('key', 'name', 'description', 'price_cents', 'needs_listing', 'options');
  return rows.map((r) => ({ ...r, currency: 'USD' as const }));
}
