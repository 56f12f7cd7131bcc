import { todaysBillboard, type PlacedListing } from '../../domain/orders/placements.ts';
import type { OperationContext } from '../operation.ts';

/** What the banner of every page reads: the paid billboard booking of the day (no operation returns it). */

/** Today's billboard listing on the request's site, or null (cached for the catalog's TTL). */
export function billboardToday(c: Pick<OperationContext, 'db' | 'site' | 'caches'>): Promise<PlacedListing | null> {
  return todaysBillboard(c.db, c.caches.billboard, c.site.id);
}
