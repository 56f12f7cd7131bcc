import { notFound } from '../../errors/errors.ts';
import { isFollowing as followsListing } from '../../domain/updates/followers.ts';
import type { OperationContext } from '../operation.ts';

/** What listing pages read about one listing beyond get_listing: the target of a form post, the follow button. */

/** The listing with this slug, any status, or 404: what a form post about a listing acts on. */
export async function listingBySlug(c: Pick<OperationContext, 'db'>, slug: string): Promise<{ id: number; slug: string }> {
  const row = await c.db('listings').where({ slug }).first('id', 'slug');
  if (!row) throw notFound('The listing');
  return row;
}

/** Whether the user follows the listing (for the follow button of the listing page). */
export function isFollowing(c: Pick<OperationContext, 'db'>, userId: number, listingId: number): Promise<boolean> {
  return followsListing(c.db, userId, listingId);
}
