import { TtlCache } from '../../cache/ttl-cache.ts';
import type { Db } from '../../db/knex.ts';
import { isProductKey, optionsJsonSchema, unitOf, type ProductUnit } from '../orders/product-options.ts';
import type { SiteSettings } from '../sites/sites.ts';

export interface Product {
  key: string;
  name: string;
  description: string;
  /** The price is for one unit: a featured week, a billboard day, a category, or the item. */
  price_cents: number;
  unit: ProductUnit;
  currency: 'USD';
  needs_listing: boolean;
  options: Record<string, unknown>;
}

/** Each site's product list, one cache per process (built by createServices). */
export type ProductsCache = TtlCache<Product[]>;

export const createProductsCache = (ttlMs: number): ProductsCache => new TtlCache({ ttlMs, maxEntries: 100 });

/** The site's active products with the admin's current prices (USD cents, excluding VAT). */
export function listProducts(db: Db, cache: ProductsCache, siteId: number): Promise<Product[]> {
  // Read on every page view; an admin's price change shows within the TTL (checkout reads the table).
  return cache.get(String(siteId), () => readProducts(db, siteId));
}

async function readProducts(db: Db, siteId: number): Promise<Product[]> {
  const rows = await db('products')
    .where({ site_id: siteId, active: true })
    .orderBy('id')
    .select('key', 'name', 'description', 'price_cents', 'needs_listing', 'options');
  const site = await db('sites').where({ id: siteId }).first('settings');
  const minDays = (site?.settings as SiteSettings | undefined)?.billboard_min_days ?? 7;
  // The published options are the JSON Schema of the very schema order items are validated with.
  return rows.map((r) => ({
    ...r,
    options: isProductKey(r.key) ? optionsJsonSchema(r.key, minDays) : r.options,
    unit: isProductKey(r.key) ? unitOf(r.key) : 'item',
    currency: 'USD' as const,
  }));
}
