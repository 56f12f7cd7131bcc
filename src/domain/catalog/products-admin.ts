import type { Db } from '../../db/knex.ts';
import { AppError, notFound } from '../../errors/errors.ts';
import { readSiteByKey } from '../sites/sites.ts';

export interface AdminProduct {
  site: string;
  key: string;
  name: string;
  price_cents: number;
  active: boolean;
}

/** Products of every site (or one), active or not. */
export async function allProducts(db: Db, siteKey?: string): Promise<AdminProduct[]> {
  return db('products as p')
    .join('sites as s', 's.id', 'p.site_id')
    .modify((q) => (siteKey ? q.where('s.key', siteKey) : q))
    .orderBy(['s.id', 'p.id'])
    .select('s.key as site', 'p.key', 'p.name', 'p.price_cents', 'p.active');
}

/** Sets one product's price or active flag; checkouts snapshot the new price from now on. */
export async function updateProduct(
  db: Db,
  siteKey: string,
  key: string,
  change: { price_cents?: number; active?: boolean },
): Promise<AdminProduct> {
  const site = await readSiteByKey(db, siteKey);
  if (!site) throw notFound(`Site "${siteKey}"`);
  if (
    change.price_cents !== undefined &&
    !(Number.isInteger(change.price_cents) && change.price_cents >= 0 && change.price_cents <= 100_000_000)
  ) {
    throw new AppError('validation_failed', 'The price must be whole cents between 0 and 100000000.');
  }
  const n = await db('products')
    .where({ site_id: site.id, key })
    .update({ ...change, updated_at: db.fn.now() });
  if (!n) throw notFound(`Product "${key}" on ${siteKey}`);
  return (await allProducts(db, siteKey)).find((p) => p.key === key)!;
}
