import { getOwnedListing } from '../../domain/listings/listings.ts';
import { updatesOfListing } from '../../domain/updates/updates.ts';
import { callerId, type OperationContext } from '../operation.ts';

/**
 * What the owner's updates page reads beyond post_listing_update: the updates already posted on
 * one of the caller's listings, newest first (another owner's listing is "not found").
 */
export async function myListingUpdates(c: Pick<OperationContext, 'db' | 'principal'>, listingId: number, page: number, perPage: number) {
  const listing = await getOwnedListing(c.db, callerId(c), listingId);
  return updatesOfListing(c.db, listing.id, page, perPage);
}
