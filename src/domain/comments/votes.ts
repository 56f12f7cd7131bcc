import type { Db } from '../../db/knex.ts';
import { appError, notFound, unprocessable } from '../../errors/errors.ts';

/** A comment's count after a vote or an unvote. */
export interface CommentVoteOutcome {
  comment_id: number;
  votes: number;
  voted: boolean;
  /** False when nothing changed (voting twice, unvoting without a vote). */
  changed: boolean;
}

type Refusal = 'not_found' | 'email_unconfirmed' | 'own_comment';

/**
 * Upvotes a visible comment of a live listing, once per account. One statement checks the rules,
 * inserts the vote and moves the comment's counter under its row lock, as listing votes do
 * (src/domain/ranking/votes.ts), so parallel votes never lose or double an increment.
 */
export async function voteComment(db: Db, userId: number, commentId: number, now: Date): Promise<CommentVoteOutcome> {
  const { rows } = await db.raw(
    `WITH e AS (
       SELECT CASE
         WHEN c.id IS NULL OR c.status <> 'visible' OR l.status <> 'live' THEN 'not_found'
         WHEN u.email_verified_at IS NULL THEN 'email_unconfirmed'
         WHEN c.user_id = :userId THEN 'own_comment'
       END AS refusal
       FROM (SELECT 1) one LEFT JOIN comments c ON c.id = :commentId LEFT JOIN listings l ON l.id = c.listing_id
         LEFT JOIN users u ON u.id = :userId
     ), v AS (
       INSERT INTO comment_votes (comment_id, user_id, created_at) SELECT :commentId, :userId, :now FROM e WHERE e.refusal IS NULL
       ON CONFLICT DO NOTHING RETURNING comment_id
     ), counted AS (
       UPDATE comments c SET votes = c.votes + 1 FROM v WHERE c.id = v.comment_id RETURNING c.votes
     )
     SELECT e.refusal, counted.votes FROM e LEFT JOIN counted ON true`,
    { commentId, userId, now },
  );
  const { refusal, votes } = rows[0] as { refusal: Refusal | null; votes: number | null };
  if (refusal) throw refused(refusal);
  if (votes !== null) return { comment_id: commentId, votes, voted: true, changed: true };
  return { comment_id: commentId, votes: await countOf(db, commentId), voted: true, changed: false };
}

/** Takes the account's vote back (a discounted vote counted 0, so it lowers nothing). */
export async function unvoteComment(db: Db, userId: number, commentId: number): Promise<CommentVoteOutcome> {
  const { rows } = await db.raw(
    `WITH d AS (
       DELETE FROM comment_votes WHERE comment_id = :commentId AND user_id = :userId RETURNING comment_id, discount_reason
     )
     UPDATE comments c SET votes = c.votes - CASE WHEN d.discount_reason IS NULL THEN 1 ELSE 0 END
     FROM d WHERE c.id = d.comment_id RETURNING c.votes`,
    { commentId, userId },
  );
  if (rows.length === 1) return { comment_id: commentId, votes: rows[0].votes, voted: false, changed: true };
  const row = await db('comments').where({ id: commentId, status: 'visible' }).first('votes');
  if (!row) throw notFound('The comment');
  return { comment_id: commentId, votes: row.votes, voted: false, changed: false };
}

function refused(refusal: Refusal) {
  switch (refusal) {
    case 'not_found':
      return notFound('The comment');
    case 'email_unconfirmed':
      return appError(
        'email_unconfirmed',
        'Confirm your email address first (see the link we mailed you): only confirmed accounts can vote.',
      );
    case 'own_comment':
      return unprocessable('own_comment', 'You cannot vote for your own comment.');
  }
}

async function countOf(db: Db, commentId: number): Promise<number> {
  return (await db('comments').where({ id: commentId }).first('votes'))?.votes ?? 0;
}
