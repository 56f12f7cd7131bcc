import { firstFreeStart } from '../../domain/orders/billboard-capacity.ts';
import { todaysBillboard, type PlacedListing } from '../../domain/orders/placements.ts';
import { addDays } from '../../domain/orders/product-options.ts';
import type { OperationContext } from '../operation.ts';

/** What the banner of every page reads: the paid billboard booking of the day (no operation returns it). */

/** Today's billboard listing on the request's site, or null (cached for the catalog's TTL). */
export function billboardToday(c: Pick<OperationContext, 'db' | 'site' | 'caches'>): Promise<PlacedListing | null> {
  return todaysBillboard(c.db, c.caches.billboard, c.site.id);
}

/**
 * What the promote page offers as the billboard's start: the first date after today from which
 * the site's minimum of days is neither booked nor held (no operation returns it; a quote that
 * overlaps is refused with the same date).
 */
export function firstFreeBillboardDate(c: Pick<OperationContext, 'db' | 'site'>, now = new Date()): Promise<string> {
  const tomorrow = addDays(now.toISOString().slice(0, 10), 1);
  return firstFreeStart(c.db, c.site.id, tomorrow, c.site.settings.billboard_min_days);
}
