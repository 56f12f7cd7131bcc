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

/** What a signed-in person sees of their own on a page. */
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

/** Their comments on the page's listing: whether one is held, and those among the page's comments. */
const THEIR_COMMENTS = `
  EXISTS (SELECT 1 FROM comments WHERE listing_id = :l AND user_id = :u AND status = 'held') AS held,
  COALESCE((SELECT json_agg(json_build_object('id', id, 'body', body, 'created_at', created_at))
    FROM comments WHERE user_id = :u AND id = ANY(:ids)), '[]'::json) AS mine`;

const STATE_AND_COMMENTS = `SELECT
  (SELECT count(*)::int FROM notifications WHERE user_id = :u AND read_at IS NULL) AS unread,
  ARRAY (SELECT listing_id FROM votes WHERE user_id = :u) AS voted,
  ARRAY (SELECT id FROM listings WHERE owner_id = :u) AS own,
  ARRAY (SELECT listing_id FROM listing_followers WHERE user_id = :u) AS following,
  ARRAY (SELECT DISTINCT listing_id FROM comments WHERE user_id = :u) AS commented,
  ARRAY (SELECT comment_id FROM comment_votes WHERE user_id = :u) AS comment_votes,
  ${THEIR_COMMENTS}`;

interface CommentsRow {
  held: boolean;
  mine: { id: number; body: string; created_at: string }[];
}

/**
 * The person's state on a page: their unread notifications, votes and ownership among the
 * listings the page shows vote controls of, follow and held comments of the page's listing, comment
 * votes and own comments. Kept state answers without a query unless the page is a listing they
 * commented on (one query for those comments); otherwise one statement reads the state (kept for
 * the next page) and the page's comments together. So a signed-in page costs at most the session
 * lookup and this.
 */
export async function pagePerson(
  c: Pick<OperationContext, 'db' | 'clock' | 'caches'>,
  userId: number,
  ask: PagePersonAsk,
): Promise<PagePerson> {
  const people = c.caches.people;
  const params = { u: userId, l: ask.listing ?? 0, ids: ask.comments };
  let state = people.get(userId);
  let comments: CommentsRow = { held: false, mine: [] };
  if (!state) {
    const since = people.begin();
    const { rows } = await c.db.raw(STATE_AND_COMMENTS, params);
    const row = rows[0] as CommentsRow & {
      unread: number;
      voted: number[];
      own: number[];
      following: number[];
      commented: number[];
      comment_votes: number[];
    };
    state = {
      unread: row.unread,
      voted: idSet(row.voted),
      own: idSet(row.own),
      following: idSet(row.following),
      commented: idSet(row.commented),
      commentVotes: idSet(row.comment_votes),
    };
    people.keep(userId, userId, state, since);
    comments = row;
  } else if (ask.listing !== null && state.commented.has(ask.listing)) {
    comments = (await c.db.raw(`SELECT ${THEIR_COMMENTS}`, params)).rows[0] as CommentsRow;
  }
  const now = c.clock.now();
  const among = (ids: Iterable<number>, of: ReadonlySet<number>) => new Set([...ids].filter((id) => of.has(id)));
  const onPage = ask.listing === null ? ask.votes : [...ask.votes, ask.listing];
  return {
    unread: state.unread,
    voted: among(onPage, state.voted),
    own: among(onPage, state.own),
    following: ask.listing !== null && state.following.has(ask.listing),
    heldComment: comments.held,
    commentVotes: among(ask.comments, state.commentVotes),
    mine: new Map(comments.mine.map((m) => [Number(m.id), { body: m.body, editableUntil: editableUntil(new Date(m.created_at), now) }])),
  };
}

const idSet = (ids: (number | string)[]) => new Set(ids.map(Number));

function editableUntil(createdAt: Date, now: Date): string | null {
  const closes = editClosesAt(createdAt);
  return now < closes ? closes.toISOString() : null;
}
