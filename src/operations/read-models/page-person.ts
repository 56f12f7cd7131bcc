import { editClosesAt } from '../../domain/comments/change.ts';
import type { OperationContext } from '../operation.ts';

/** What a page shows that is a signed-in person's own: the parts their state is read for. */
export interface PagePersonAsk {
  /** Listings whose vote control the page shows. */
  votes: number[];
  /** The listing whose own page this is (follow control, held comments); null on other pages. */
  listing: number | null;
  /** The comments the page shows. */
  comments: number[];
}

/** What a signed-in person sees of their own on a page, read at once (one query). */
export interface PagePerson {
  unread: number;
  /** Among the page's listings (vote controls, its own listing): those they voted for, and those they own (no Vote button). */
  voted: Set<number>;
  own: Set<number>;
  following: boolean;
  /** A held comment of theirs shows only to them: the kept thread is not theirs then. */
  heldComment: boolean;
  /** Among the page's comments: those they upvoted. */
  commentVotes: Set<number>;
  /** Among the page's comments: those they wrote, with what their edit form needs (until when, if it still can). */
  mine: Map<number, { body: string; editableUntil: string | null }>;
}

/**
 * The person's state on a page: their unread notifications, votes and ownership among the
 * listings the page shows vote controls of, follow and held comments of the page's listing, comment
 * votes and own comments. One statement, so a signed-in page costs the session lookup and this.
 */
export async function pagePerson(c: Pick<OperationContext, 'db' | 'clock'>, userId: number, ask: PagePersonAsk): Promise<PagePerson> {
  const now = c.clock.now();
  const { rows } = await c.db.raw(
    `SELECT
       (SELECT count(*)::int FROM notifications WHERE user_id = :u AND read_at IS NULL) AS unread,
       ARRAY (SELECT listing_id FROM votes WHERE user_id = :u AND listing_id = ANY(:ls)) AS voted,
       ARRAY (SELECT id FROM listings WHERE owner_id = :u AND id = ANY(:ls)) AS own,
       EXISTS (SELECT 1 FROM listing_followers WHERE user_id = :u AND listing_id = :l) AS following,
       EXISTS (SELECT 1 FROM comments WHERE listing_id = :l AND user_id = :u AND status = 'held') AS held,
       ARRAY (SELECT comment_id FROM comment_votes WHERE user_id = :u AND comment_id = ANY(:ids)) AS comment_votes,
       COALESCE((SELECT json_agg(json_build_object('id', id, 'body', body, 'created_at', created_at))
         FROM comments WHERE user_id = :u AND id = ANY(:ids)), '[]'::json) AS mine`,
    {
      u: userId,
      ls: [...new Set(ask.listing ? [...ask.votes, ask.listing] : ask.votes)],
      l: ask.listing ?? 0,
      ids: ask.comments,
    },
  );
  const row = rows[0] as {
    unread: number;
    voted: number[];
    own: number[];
    following: boolean;
    held: boolean;
    comment_votes: number[];
    mine: { id: number; body: string; created_at: string }[];
  };
  return {
    unread: row.unread,
    voted: new Set(row.voted.map(Number)),
    own: new Set(row.own.map(Number)),
    following: row.following,
    heldComment: row.held,
    commentVotes: new Set(row.comment_votes.map(Number)),
    mine: new Map(row.mine.map((m) => [Number(m.id), { body: m.body, editableUntil: editableUntil(new Date(m.created_at), now) }])),
  };
}

function editableUntil(createdAt: Date, now: Date): string | null {
  const closes = editClosesAt(createdAt);
  return now < closes ? closes.toISOString() : null;
}
