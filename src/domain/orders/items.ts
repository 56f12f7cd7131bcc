import { TtlCache } from '../../cache/ttl-cache.ts';
import type { Db } from '../../db/knex.ts';
import { AppError, appError, validationFailed, type FieldError } from '../../errors/errors.ts';
import { listProducts, type ProductsCache } from '../catalog/products.ts';
import type { Site } from '../sites/sites.ts';
import { isoWeekStart } from '../../workflows/contracts/weeks.ts';
import type { LineFacts } from './line-text.ts';
import { placeInLiveWeeks } from './placement-weeks.ts';
import { MAX_WEEKS_AHEAD, addDays, isProductKey, optionsSchema, quantityOf, unitOf, type ProductKey } from './product-options.ts';

/** One element of `items` as the caller sent it. */
export interface OrderItemInput {
  product: string;
  listing_id?: number | undefined;
  options?: Record<string, unknown> | undefined;
}

/** The caller's listings on a site (id → name) by `{site}:{user}`, one cache per process (built by createServices). */
export type OwnedListingsCache = TtlCache<Map<number, string>>;

export const createOwnedListingsCache = (ttlMs: number): OwnedListingsCache => new TtlCache({ ttlMs, maxEntries: 10_000 });

/** The caches a quote may read through (checkouts read the tables). */
export interface CatalogCaches {
  products: ProductsCache;
  ownedListings: OwnedListingsCache;
}

/** An item checked against the catalog: the unit price snapshot, the normalised options and how many units they buy. */
export interface ResolvedItem extends LineFacts {
  product: ProductKey;
  product_name: string;
}

/** What pricing needs of a product: the site's current price. */
export interface ProductRow {
  key: string;
  name: string;
  price_cents: number;
  needs_listing: boolean;
}

/**
 * Validates every item with its product's options schema and the rules that need the database
 * (weeks ahead, billboard dates, section not yet unlocked, the caller's own listing on this site).
 * Room for capacity (paid slots, billboard days) is not checked here: see capacity-holds.ts.
 * Malformed options → 400, refused ones → 422; both name `items.{index}.{field}`.
 */
export async function resolveItems(
  db: Db,
  site: Site,
  userId: number,
  items: OrderItemInput[],
  now: Date,
  catalog?: CatalogCaches,
): Promise<ResolvedItem[]> {
  const products: ProductRow[] = catalog
    ? await listProducts(db, catalog.products, site.id)
    : await db('products').where({ site_id: site.id, active: true }).select('key', 'name', 'price_cents', 'needs_listing');
  const productsByKey = new Map<string, ProductRow>(products.map((p) => [p.key, p]));
  const malformed: FieldError[] = [];
  const parsed = items.map((item, i) => {
    const product = productsByKey.get(item.product);
    if (!product || !isProductKey(item.product)) {
      malformed.push({ path: `items.${i}.product`, message: `Unknown product "${item.product}"; see list_products` });
      return null;
    }
    if (product.needs_listing && item.listing_id === undefined) {
      malformed.push({ path: `items.${i}.listing_id`, message: `The product "${item.product}" is bought for one of your listings` });
    }
    const options = optionsSchema(item.product, site.settings.billboard_min_days).safeParse(item.options ?? {});
    if (!options.success) {
      for (const issue of options.error.issues) {
        const base = ['items', i, 'options', ...issue.path].map(String).join('.');
        if (issue.code === 'unrecognized_keys')
          for (const key of issue.keys) malformed.push({ path: `${base}.${key}`, message: `Unknown option "${key}"` });
        else malformed.push({ path: base, message: issue.message });
      }
      return null;
    }
    return {
      product: item.product,
      product_name: product.name,
      listing_id: item.listing_id ?? null,
      listing_name: null,
      options: options.data,
      unit: unitOf(item.product),
      quantity: quantityOf(item.product, options.data),
      unit_price_cents: product.price_cents,
    };
  });
  if (malformed.length) throw validationFailed(malformed, 'Some order items are invalid.');
  const names = await checkListings(db, site.id, userId, parsed as ResolvedItem[], catalog?.ownedListings);
  const resolved = (parsed as ResolvedItem[]).map((i) => ({ ...i, listing_name: i.listing_id === null ? null : names.get(i.listing_id)! }));
  const refused = await refusals(db, resolved, now);
  if (refused.length) {
    throw new AppError('order_item_refused', refused.map((r) => `${r.path}: ${r.message}`).join(' '), {
      errors: refused,
    });
  }
  return placeInLiveWeeks(db, site, resolved, now);
}

/**
 * Every listing named must be the caller's and on the request's site: another
 * owner's listing, or one of the caller's on another site, is "not found" here, as it is in this
 * site's directory (a company may have a listing on each site; placements are sold per site).
 * Returns their names by id. With a cache TTL (quotes, which change nothing) the caller's listings
 * may be as old as the TTL; a listing not among them is looked up in the table, so a listing just
 * claimed is found at once.
 */
async function checkListings(
  db: Db,
  siteId: number,
  userId: number,
  items: ResolvedItem[],
  ownedCache: OwnedListingsCache | undefined,
): Promise<Map<number, string>> {
  const ids = [...new Set(items.map((i) => i.listing_id).filter((id): id is number => id !== null))];
  if (!ids.length) return new Map();
  // Every listing of the caller on the site (null), or those of `only`.
  const namesOf = async (only: number[] | null) => {
    const query = only ? db('listings').whereIn('id', only) : db('listings');
    const rows = await query.where({ owner_id: userId, site_id: siteId }).select('id', 'name');
    return new Map(rows.map((r) => [r.id, r.name]));
  };
  if (ownedCache) {
    const mine = await ownedCache.get(`${siteId}:${userId}`, () => namesOf(null));
    if (ids.every((id) => mine.has(id))) return mine;
  }
  const owned = await namesOf(ids);
  const missing = ids.find((id) => !owned.has(id));
  if (missing !== undefined) throw appError('not_found', `Listing ${missing} was not found among your listings on this site.`);
  return owned;
}

async function refusals(db: Db, items: ResolvedItem[], now: Date): Promise<FieldError[]> {
  const out: FieldError[] = [];
  const today = now.toISOString().slice(0, 10);
  for (const [i, item] of items.entries()) {
    const at = (field: string, message: string) => out.push({ path: `items.${i}.options.${field}`, message });
    const o = item.options;
    if (item.product === 'launch' && typeof o.week === 'string') {
      const thisWeek = isoWeekStart(now);
      if (o.week < thisWeek) at('week', `The week ${o.week} is in the past`);
      else if (o.week > addDays(thisWeek, MAX_WEEKS_AHEAD * 7)) at('week', `Choose a week within the next ${MAX_WEEKS_AHEAD} weeks`);
    }
    if (item.product === 'billboard') {
      const start = o.start_date as string;
      if (start <= today) at('start_date', 'The billboard must start after today');
      else if (start > addDays(today, 365)) at('start_date', 'The billboard must start within a year');
    }
    if (item.product === 'unlock_section' && item.listing_id !== null) {
      const row = await db('listings').where({ id: item.listing_id }).first('unlocked_sections');
      if ((row?.unlocked_sections as string[] | undefined)?.includes(o.section as string)) {
        at('section', `The section "${o.section as string}" is already unlocked on this listing`);
      }
    }
  }
  return out;
}
