import type { Db } from '../../src/db/knex.ts';
import { castVote } from '../../src/domain/ranking/votes.ts';
import type { VoteSignalValues } from '../../src/domain/votes/signals.ts';

let batch = 0;

/**
 * `count` confirmed accounts created `createdMinutesApart` minutes apart (the first `ageDays` days
 * ago), each casting a vote on every listing of `listingIds` with the given signals (a ring shares
 * one network hash; give each its own for an organic crowd). Returns the account ids.
 */
export async function ringVotes(
  db: Db,
  listingIds: number[],
  count: number,
  options: { network?: (i: number) => string; ageDays?: number; createdMinutesApart?: number; referrer?: string | null } = {},
): Promise<number[]> {
  const tag = `${process.pid}-${++batch}-${Date.now()}`;
  const ageMs = (options.ageDays ?? 0) * 86_400_000;
  const apart = (options.createdMinutesApart ?? 1) * 60_000;
  const users: { id: number }[] = await db('users')
    .insert(
      Array.from({ length: count }, (_, i) => ({
        email: `ring-${tag}-${i}@example.com`,
        email_verified_at: db.fn.now(),
        created_at: new Date(Date.now() - ageMs - (count - i) * apart),
      })),
    )
    .returning('id');
  for (const [i, u] of users.entries()) {
    const signals: VoteSignalValues = {
      network_hash: options.network ? options.network(i) : `organic-${tag}-${i}`,
      network_key: 'vote-network:test',
      ua_family: 'Chrome',
      referrer_host: options.referrer ?? null,
    };
    for (const listingId of listingIds) await castVote(db, u.id, listingId, new Date(), '', signals);
  }
  return users.map((u) => u.id);
}

/** Records that the listing's Vote button was shown plenty in every hour it got votes (organic traffic: no burst). */
export async function buttonShownForVotes(db: Db, listingId: number, views = 1000): Promise<void> {
  await db.raw(
    `INSERT INTO vote_button_views (listing_id, hour, views)
     SELECT listing_id, date_trunc('hour', created_at), ? FROM votes WHERE listing_id = ? GROUP BY 1, 2
     ON CONFLICT (listing_id, hour) DO UPDATE SET views = EXCLUDED.views`,
    [views, listingId],
  );
}
