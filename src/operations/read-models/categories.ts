import { categoryListings, type PlacedListing } from '../../domain/orders/placements.ts';
import type { OperationContext } from '../operation.ts';

/** What a category page reads (no operation lists a category); the category list is the crawler's, named here. */

export { CATEGORY_SLUGS } from '../../domain/crawl/categories.ts';

/** The category's live listings on the request's site: paid placements first, then by votes (reused for the browse cache's TTL). */
export function categoryPage(
  c: Pick<OperationContext, 'db' | 'site' | 'caches'>,
  category: string,
): Promise<(PlacedListing & { placed: boolean })[]> {
  return c.caches.browse.categoryListings.get(`${c.site.id}:${category}`, () => categoryListings(c.db, c.site.id, category));
}
