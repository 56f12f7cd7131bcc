import { editClosesAt } from '../../domain/comments/change.ts';
import type { OperationContext } from '../operation.ts';

/** What a signed-in person sees of their own on a listing page, read at once (one query). */
export interface ListingPagePerson {
  unread: number;
  voted: boolean;
  following: boolean;
  /** Whether they own the listing (their own listing: no Vote button). */
  own: boolean;
  /** A held comment of theirs shows only to them: the kept thread is not theirs then. */
  heldComment: boolean;
  /** Among the page's comments: those they upvoted. */
  commentVotes: Set<number>;
  /** Among the page's comments: those they wrote, with what their edit form needs (until when, if it still can). */
  mine: Map<number, { body: string; editableUntil: string | null }>;
}

/**
 * The person's state on the page of listing `listingId` showing the comments `commentIds`: their
 * unread notifications, vote, follow, ownership, held comments, comment votes and own comments,
 * in one statement so a signed-in page costs the session lookup and this.
 */
export async function listingPagePerson(
  c: Pick<OperationContext, 'db' | 'clock'>,
  userId: number,
  listingId: number,
  commentIds: number[],
): Promise<ListingPagePerson> {
  const { rows } = await c.db.raw(
    `SELECT
       (SELECT count(*)::int FROM notifications WHERE user_id = :u AND read_at IS NULL) AS unread,
       EXISTS (SELECT 1 FROM votes WHERE user_id = :u AND listing_id = :l) AS voted,
       EXISTS (SELECT 1 FROM listing_followers WHERE user_id = :u AND listing_id = :l) AS following,
       EXISTS (SELECT 1 FROM listings WHERE id = :l AND owner_id = :u) AS own,
       EXISTS (SELECT 1 FROM comments WHERE listing_id = :l AND user_id = :u AND status = 'held') AS held,
       ARRAY (SELECT comment_id FROM comment_votes WHERE user_id = :u AND comment_id = ANY(:ids)) AS comment_votes,
       COALESCE((SELECT json_agg(json_build_object('id', id, 'body', body, 'created_at', created_at))
         FROM comments WHERE user_id = :u AND id = ANY(:ids)), '[]'::json) AS mine`,
    { u: userId, l: listingId, ids: commentIds },
  );
  const row = rows[0] as {
    unread: number;
    voted: boolean;
    following: boolean;
    own: boolean;
    held: boolean;
    comment_votes: number[];
    mine: { id: number; body: string; created_at: string }[];
  };
  const now = c.clock.now();
  return {
    unread: row.unread,
    voted: row.voted,
    following: row.following,
    own: row.own,
    heldComment: row.held,
    commentVotes: new Set(row.comment_votes.map(Number)),
    mine: new Map(row.mine.map((m) => [Number(m.id), { body: m.body, editableUntil: editableUntil(new Date(m.created_at), now) }])),
  };
}

function editableUntil(createdAt: Date, now: Date): string | null {
  const closes = editClosesAt(createdAt);
  return now < closes ? closes.toISOString() : null;
}
