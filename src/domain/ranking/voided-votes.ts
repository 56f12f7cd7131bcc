import type { Db } from '../../db/knex.ts';
import { badRequest, notFound } from '../../errors/errors.ts';

export interface VoidVotesInput {
  listingId: number;
  reason: string;
  /** Only this account's vote; all votes of the listing when absent. */
  userId?: number;
}

/** Public count of removed votes per reason, most first. */
export interface RemovedVotes {
  total: number;
  reasons: { reason: string; count: number }[];
}

/**
 * Removes votes for fraud: deletes them, records each in `voided_votes` with the reason and
 * lowers both counters of the listing, in one statement (a vote cast meanwhile is either removed
 * too or counted, never half). The accounts cannot vote on the listing again. Returns how many
 * votes were removed (0 when there were none, e.g. on a second run).
 */
export async function voidVotes(db: Db, input: VoidVotesInput): Promise<{ removed: number; votes: number }> {
  const reason = input.reason.trim();
  if (reason.length === 0 || reason.length > 500) throw badRequest('invalid_reason', 'The reason must be 1 to 500 characters.');
  const listing = await db('listings').where({ id: input.listingId }).first('id');
  if (!listing) throw notFound(`Listing ${input.listingId}`);
  const { rows } = await db.raw(
    `WITH c AS (
       DELETE FROM votes v WHERE v.listing_id = :listingId AND (:userId::int IS NULL OR v.user_id = :userId::int)
       RETURNING v.listing_id, v.user_id, v.created_at, v.discount_reason
     ), recorded AS (
       INSERT INTO voided_votes (listing_id, user_id, voted_at, in_launch_week, reason)
       SELECT c.listing_id, c.user_id, c.created_at,
         COALESCE(in_launch_week(c.created_at, l.launch_week), false), :reason
       FROM c JOIN listings l ON l.id = c.listing_id
       RETURNING user_id, in_launch_week
     ), reviewed AS (
       -- A detector's flag on a removed vote is decided: voided.
       UPDATE vote_flags f SET state = 'voided', decided_at = now() FROM c
       WHERE f.listing_id = c.listing_id AND f.user_id = c.user_id AND f.state <> 'voided'
     ), lowered AS (
       -- A discounted vote counted 0 already: removing it lowers nothing.
       SELECT r.in_launch_week FROM recorded r JOIN c ON c.user_id = r.user_id WHERE c.discount_reason IS NULL
     )
     UPDATE listings l SET votes = l.votes - (SELECT count(*) FROM lowered),
       week_votes = l.week_votes - (SELECT count(*) FILTER (WHERE in_launch_week) FROM lowered)
     WHERE l.id = :listingId
     RETURNING l.votes, (SELECT count(*) FROM recorded)::int AS removed`,
    { listingId: input.listingId, userId: input.userId ?? null, reason },
  );
  return { removed: rows[0].removed, votes: rows[0].votes };
}

/** Removed votes of a listing, counted per reason (what the public listing page shows). */
export async function removedVotes(db: Db, listingId: number): Promise<RemovedVotes> {
  const rows: { reason: string; count: number }[] = await db('voided_votes')
    .where({ listing_id: listingId })
    .groupBy('reason')
    .orderByRaw('count(*) DESC, reason')
    .select('reason', db.raw('count(*)::int AS count'));
  return { total: rows.reduce((sum, r) => sum + r.count, 0), reasons: rows };
}
