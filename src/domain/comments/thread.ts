import type { Db } from '../../db/knex.ts';
import { notFound } from '../../errors/errors.ts';
import { editClosesAt } from './change.ts';
import type { CommentStatus } from './tables.ts';

export const THREAD_SORTS = ['top', 'newest'] as const;
export type ThreadSort = (typeof THREAD_SORTS)[number];

/** One comment as a reader sees it. A deleted or hidden one keeps its place, without text or author. */
export interface CommentView {
  id: number;
  parent_id: number | null;
  status: CommentStatus;
  body: string;
  /** Why the site team hid it (shown in its place), for `hidden`. */
  hidden_reason: string | null;
  author: { name: string; maker: boolean } | null;
  votes: number;
  /** Whether the reader upvoted it. */
  voted: boolean;
  /** Whether the reader wrote it. */
  mine: boolean;
  created_at: string;
  edited_at: string | null;
  /** Until when the reader (its author) can edit it; null when they cannot. */
  editable_until: string | null;
}

export interface ThreadComment extends CommentView {
  /** Oldest first. */
  replies: CommentView[];
}

export interface Thread {
  listing_id: number;
  /** Visible comments and replies of the listing. */
  comment_count: number;
  sort: ThreadSort;
  items: ThreadComment[];
  page: number;
  per_page: number;
  /** Top-level comments in the thread. */
  total: number;
}

// What a reader is shown: visible comments, their own held ones, hidden ones (the team's reason in
// their place), and deleted ones that keep a shown reply in place.
const SHOWN = `(c.status IN ('visible', 'hidden') OR (c.status = 'held' AND c.user_id = :viewer)
  OR (c.status = 'deleted' AND EXISTS (SELECT 1 FROM comments r WHERE r.parent_id = c.id
        AND (r.status IN ('visible', 'hidden') OR (r.status = 'held' AND r.user_id = :viewer)))))`;

const ORDER: Record<ThreadSort, string> = {
  top: 'c.votes DESC, c.created_at ASC, c.id ASC',
  newest: 'c.created_at DESC, c.id DESC',
};

const COLUMNS = `c.id, c.parent_id, c.status, c.body, c.hidden_reason, c.user_id, c.votes, c.created_at, c.edited_at,
  c.user_id = l.owner_id AS maker, fp.display_name,
  EXISTS (SELECT 1 FROM comment_votes v WHERE v.comment_id = c.id AND v.user_id = :viewer) AS voted`;

const FROM = `FROM comments c JOIN listings l ON l.id = c.listing_id LEFT JOIN founder_profiles fp ON fp.user_id = c.user_id`;

interface Row {
  id: number;
  parent_id: number | null;
  status: CommentStatus;
  body: string;
  hidden_reason: string | null;
  user_id: number | null;
  votes: number;
  created_at: Date;
  edited_at: Date | null;
  maker: boolean | null;
  display_name: string | null;
  voted: boolean;
}

/**
 * A page of the discussion of a live listing (404 otherwise) for `viewer` (null: a visitor):
 * top-level comments sorted `top` (votes, then the older first) or `newest`, each with all its
 * shown replies, oldest first.
 */
export async function listThread(
  db: Db,
  listingId: number,
  viewer: number | null,
  query: { sort: ThreadSort; page: number; per_page: number },
  now: Date,
): Promise<Thread> {
  const listing = await db('listings').where({ id: listingId, status: 'live' }).first('id', 'comment_count');
  if (!listing) throw notFound('The listing');
  const params = { listingId, viewer: viewer ?? 0, limit: query.per_page, offset: (query.page - 1) * query.per_page };
  const [top, count] = await Promise.all([
    db.raw(
      `SELECT ${COLUMNS} ${FROM} WHERE c.listing_id = :listingId AND c.parent_id IS NULL AND ${SHOWN}
       ORDER BY ${ORDER[query.sort]} LIMIT :limit OFFSET :offset`,
      params,
    ),
    db.raw(`SELECT count(*)::int AS total FROM comments c WHERE c.listing_id = :listingId AND c.parent_id IS NULL AND ${SHOWN}`, params),
  ]);
  const parents = (top.rows as Row[]).map((r) => r.id);
  const replies = parents.length
    ? ((
        await db.raw(
          `SELECT ${COLUMNS} ${FROM} WHERE c.parent_id = ANY(:parents) AND c.status <> 'deleted' AND ${SHOWN}
           ORDER BY c.created_at ASC, c.id ASC`,
          { ...params, parents },
        )
      ).rows as Row[])
    : [];
  const view = (r: Row) => toView(r, viewer, now);
  return {
    listing_id: listingId,
    comment_count: listing.comment_count,
    sort: query.sort,
    items: (top.rows as Row[]).map((r) => ({ ...view(r), replies: replies.filter((x) => x.parent_id === r.id).map(view) })),
    page: query.page,
    per_page: query.per_page,
    total: count.rows[0].total,
  };
}

/** A comment whose account was deleted keeps its text and reads "deleted account" (docs/accounts.md). */
const authorOf = (r: Row) =>
  r.user_id === null ? { name: DELETED_ACCOUNT, maker: false } : { name: r.display_name ?? `Member ${r.user_id}`, maker: r.maker === true };

/** The author's name of a comment whose account is gone. */
export const DELETED_ACCOUNT = 'deleted account';

function toView(r: Row, viewer: number | null, now: Date): CommentView {
  const gone = r.status === 'deleted' || r.status === 'hidden';
  const mine = viewer !== null && r.user_id === viewer;
  const closes = editClosesAt(r.created_at);
  return {
    id: r.id,
    parent_id: r.parent_id,
    status: r.status,
    body: gone ? '' : r.body,
    hidden_reason: r.status === 'hidden' ? r.hidden_reason : null,
    author: gone ? null : authorOf(r),
    votes: r.votes,
    voted: r.voted,
    mine,
    created_at: r.created_at.toISOString(),
    edited_at: r.edited_at?.toISOString() ?? null,
    editable_until: mine && !gone && now < closes ? closes.toISOString() : null,
  };
}

/** One comment as its author sees it right after a change (status `held` included). */
export async function commentAsAuthor(db: Db, commentId: number, viewer: number, now: Date): Promise<CommentView> {
  const { rows } = await db.raw(`SELECT ${COLUMNS} ${FROM} WHERE c.id = :commentId`, { commentId, viewer });
  if (!rows[0]) throw notFound('The comment');
  return toView(rows[0] as Row, viewer, now);
}
