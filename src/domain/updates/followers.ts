import type { Db } from '../../db/knex.ts';
import { notFound } from '../../errors/errors.ts';

export interface FollowState {
  listing_id: number;
  following: boolean;
  follower_count: number;
}

/** Follows a live listing; following again changes nothing. */
export function followListing(db: Db, userId: number, listingId: number): Promise<FollowState> {
  return db.transaction(async (trx) => {
    const listing = await trx('listings').where({ id: listingId }).first('status');
    if (listing?.status !== 'live') throw notFound(`Listing ${listingId}`);
    const added = await trx('listing_followers')
      .insert({ listing_id: listingId, user_id: userId })
      .onConflict(['listing_id', 'user_id'])
      .ignore()
      .returning('user_id');
    return { listing_id: listingId, following: true, follower_count: await adjustCount(trx, listingId, added.length) };
  });
}

/**
 * Stops following; not following already is fine. A listing that is not live can still be
 * unfollowed by its followers, but to anyone else it does not exist.
 */
export function unfollowListing(db: Db, userId: number, listingId: number): Promise<FollowState> {
  return db.transaction(async (trx) => {
    const removed = await trx('listing_followers').where({ listing_id: listingId, user_id: userId }).delete().returning('user_id');
    if (removed.length === 0) {
      const listing = await trx('listings').where({ id: listingId }).first('status');
      if (listing?.status !== 'live') throw notFound(`Listing ${listingId}`);
    }
    return { listing_id: listingId, following: false, follower_count: await adjustCount(trx, listingId, -removed.length) };
  });
}

/** Moves the listing's follower_count by delta in the same transaction as the follow row. */
async function adjustCount(trx: Db, listingId: number, delta: number): Promise<number> {
  const query = trx('listings').where({ id: listingId });
  if (delta === 0) return (await query.first('follower_count'))!.follower_count;
  const [row] = await query.increment('follower_count', delta).returning('follower_count');
  return row.follower_count;
}

/** Whether the user follows the listing (for the follow button of the listing page). */
export async function isFollowing(db: Db, userId: number, listingId: number): Promise<boolean> {
  return (await db('listing_followers').where({ listing_id: listingId, user_id: userId }).first('user_id')) !== undefined;
}
