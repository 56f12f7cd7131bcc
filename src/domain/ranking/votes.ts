import { announceListingChange } from '../../db/notify.ts';
import type { Db } from '../../db/knex.ts';
import { AppError, conflict, notFound, unprocessable } from '../../errors/errors.ts';
import type { VoteSignalValues } from '../votes/signals.ts';
import { VOTE_MILESTONES } from '../webhooks/events.ts';
import { emitListingEvent } from '../webhooks/emit.ts';

/** A listing's counts after a vote or an unvote. */
export interface VoteOutcome {
  listing_id: number;
  /** All counted votes of the listing (`listings.votes`). */
  votes: number;
  /** Whether the account's vote is on the listing now. */
  voted: boolean;
  /** False when nothing changed (voting twice, unvoting without a vote). */
  changed: boolean;
}

// SQL for "this vote was cast during the listing's launch week" (ISO week, Monday 00:00 UTC).
const IN_LAUNCH_WEEK = 'in_launch_week(c.created_at, l.launch_week)';

/**
 * THE vote eligibility: one row whose `refusal` says why the account may not vote on the listing
 * (null: it may). Cast and the explanation of a refused cast read this same statement, so the
 * rule and its reasons cannot drift apart. In the order a voter can act on them.
 */
const VOTE_REFUSAL = `
  SELECT CASE
    WHEN l.id IS NULL OR l.status <> 'live' THEN 'not_found'
    WHEN u.email_verified_at IS NULL THEN 'email_unconfirmed'
    WHEN l.owner_id = :userId THEN 'own_listing'
    WHEN EXISTS (SELECT 1 FROM voided_votes x WHERE x.listing_id = :listingId AND x.user_id = :userId) THEN 'vote_voided'
  END AS refusal
  FROM (SELECT 1) one LEFT JOIN listings l ON l.id = :listingId LEFT JOIN users u ON u.id = :userId`;

export type VoteRefusal = 'not_found' | 'email_unconfirmed' | 'own_listing' | 'vote_voided';

/**
 * Casts the account's vote on a live listing at `now` (the vote's time decides whether it counts
 * for the launch week). One statement checks eligibility, inserts the vote (and its signals, when
 * given) and moves both counters under the listing's row lock, so parallel votes never lose an
 * increment. Voting twice changes nothing. Refused: not live (404), unconfirmed email, own
 * listing, a vote voided before.
 */
export async function castVote(
  db: Db,
  userId: number,
  listingId: number,
  now: Date,
  baseUrl = '',
  signals?: VoteSignalValues,
): Promise<VoteOutcome> {
  // One transaction: a milestone's webhook event is stored with the vote that reached it, or neither is.
  const outcome = await db.transaction(async (trx) => {
    const { rows } = await trx.raw(
      `WITH e AS (${VOTE_REFUSAL}
     ), c AS (
       INSERT INTO votes (listing_id, user_id, created_at) SELECT :listingId, :userId, :now FROM e WHERE e.refusal IS NULL
       ON CONFLICT DO NOTHING RETURNING listing_id, created_at
     ), s AS (
       INSERT INTO vote_signals (listing_id, user_id, voted_at, account_age_s, confirmed_by, network_hash, network_key,
         ua_family, referrer_host)
       SELECT c.listing_id, u.id, c.created_at, GREATEST(0, floor(extract(epoch FROM c.created_at - u.created_at)))::int,
         'email', :networkHash, :networkKey, :uaFamily, :referrerHost
       FROM c JOIN users u ON u.id = :userId WHERE :withSignals
     ), counted AS (
       UPDATE listings l SET votes = l.votes + 1,
         week_votes = l.week_votes + CASE WHEN ${IN_LAUNCH_WEEK} THEN 1 ELSE 0 END
       FROM c WHERE l.id = c.listing_id
       RETURNING l.votes
     )
     SELECT e.refusal, counted.votes FROM e LEFT JOIN counted ON true`,
      {
        listingId,
        userId,
        now,
        withSignals: signals !== undefined,
        networkHash: signals?.network_hash ?? null,
        networkKey: signals?.network_key ?? '',
        uaFamily: signals?.ua_family ?? '',
        referrerHost: signals?.referrer_host ?? null,
      },
    );
    const { refusal, votes } = rows[0] as { refusal: VoteRefusal | null; votes: number | null };
    if (refusal) throw explainRefusedVote(refusal);
    if (votes === null) return null;
    await announceListingChange(trx, 'votes', [listingId]);
    // The owner's webhooks hear of 10, 50, 100 and 500 votes, once each (a vote taken back and cast again repeats nothing).
    if ((VOTE_MILESTONES as readonly number[]).includes(votes)) {
      await emitListingEvent(trx, baseUrl, 'vote.milestone', listingId, `vote.milestone:${listingId}:${votes}`, { milestone: votes });
    }
    return { listing_id: listingId, votes, voted: true, changed: true };
  });
  // Eligible and not inserted: the account's vote was there already.
  return outcome ?? { listing_id: listingId, votes: await countOf(db, listingId), voted: true, changed: false };
}

/** Why the account may not vote on the listing now (null: it may), from the same rule castVote applies. */
export async function voteRefusal(db: Db, userId: number, listingId: number): Promise<VoteRefusal | null> {
  const { rows } = await db.raw(VOTE_REFUSAL, { userId, listingId });
  return rows[0].refusal;
}

/**
 * Takes the account's vote back, only before `now` reaches the end of the listing's launch week
 * (afterwards the week's result stands). Without a vote it changes nothing.
 */
export async function withdrawVote(db: Db, userId: number, listingId: number, now: Date): Promise<VoteOutcome> {
  const { rows } = await db.raw(
    `WITH c AS (
       DELETE FROM votes v USING listings l
       WHERE v.listing_id = :listingId AND v.user_id = :userId AND l.id = v.listing_id
         AND :now < launch_week_end(l.launch_week)
       RETURNING v.listing_id, v.created_at, v.discount_reason
     )
     -- A discounted vote counted 0, so taking it back lowers nothing.
     UPDATE listings l SET votes = l.votes - CASE WHEN c.discount_reason IS NULL THEN 1 ELSE 0 END,
       week_votes = l.week_votes - CASE WHEN c.discount_reason IS NULL AND ${IN_LAUNCH_WEEK} THEN 1 ELSE 0 END
     FROM c WHERE l.id = c.listing_id
     RETURNING l.votes`,
    { listingId, userId, now },
  );
  if (rows.length === 1) {
    await announceListingChange(db, 'votes', [listingId]);
    return { listing_id: listingId, votes: rows[0].votes, voted: false, changed: true };
  }
  const listing = await db('listings').where({ id: listingId }).first('id', 'status');
  if (!listing || listing.status !== 'live') throw notFound('The listing');
  const vote = await db('votes').where({ listing_id: listingId, user_id: userId }).first('user_id');
  if (vote) throw conflict('voting_closed', 'The launch week of this listing is over: its votes stand and can no longer be taken back.');
  return { listing_id: listingId, votes: await countOf(db, listingId), voted: false, changed: false };
}

/** Of the given listings, those the account has a vote on. */
export async function votedListingIds(db: Db, userId: number, listingIds: number[]): Promise<Set<number>> {
  if (listingIds.length === 0) return new Set();
  const ids: number[] = await db('votes').where({ user_id: userId }).whereIn('listing_id', listingIds).pluck('listing_id');
  return new Set(ids);
}

/** The problem a refused vote answers with. */
function explainRefusedVote(refusal: VoteRefusal): AppError {
  switch (refusal) {
    case 'not_found':
      return notFound('The listing');
    case 'email_unconfirmed':
      return new AppError(
        'email_unconfirmed',
        'Confirm your email address first (see the link we mailed you): only confirmed accounts can vote.',
      );
    case 'own_listing':
      return unprocessable('own_listing', 'You cannot vote for your own listing.');
    case 'vote_voided':
      return unprocessable('vote_voided', 'Your vote on this listing was removed by the site team and cannot be cast again.');
  }
}

async function countOf(db: Db, listingId: number): Promise<number> {
  const row = await db('listings').where({ id: listingId }).first('votes');
  return row?.votes ?? 0;
}
