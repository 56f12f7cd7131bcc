import { randomBytes } from 'node:crypto';
import type { Db } from '../../src/db/knex.ts';

/** Inserts `count` users with verified addresses who follow the listing (bulk, for fan-out tests). */
export async function insertFollowers(db: Db, listingId: number, count: number): Promise<{ id: number; email: string }[]> {
  const tag = randomBytes(4).toString('hex');
  const users: { id: number; email: string }[] = await db('users')
    .insert(Array.from({ length: count }, (_, i) => ({ email: `follower-${tag}-${i}@example.com`, email_verified_at: db.fn.now() })))
    .returning(['id', 'email']);
  await db('listing_followers').insert(users.map((u) => ({ listing_id: listingId, user_id: u.id })));
  await db('listings').where({ id: listingId }).increment('follower_count', count);
  return users;
}

/** Marks a user's address verified, so that mail reaches it. */
export async function verifyEmail(db: Db, userId: number): Promise<void> {
  await db('users').where({ id: userId }).update({ email_verified_at: db.fn.now() });
}
