import { tellAboutApprovedComment, type CommentNoticeSettings } from './notices.ts';
import type { Knex } from 'knex';
import type { Db } from '../../db/knex.ts';
import { conflict, notFound } from '../../errors/errors.ts';
import type { CommentStatus } from './tables.ts';

/** What the site team does with a comment of the moderation queue. */
export const COMMENT_ACTIONS = ['approve', 'hide', 'restore', 'dismiss'] as const;
export type CommentAction = (typeof COMMENT_ACTIONS)[number];

/** One comment waiting for the site team: held (a new account's) or reported, or both. */
export interface QueuedComment {
  id: number;
  listing: { id: number; slug: string; name: string };
  parent_id: number | null;
  author: { user_id: number; name: string; email: string; maker: boolean } | null;
  body: string;
  hidden_reason: string | null;
  status: CommentStatus;
  created_at: Date;
  /** The oldest of: when a held comment was posted, when its first open report came. */
  waiting_since: Date;
  open_reports: number;
  reports_by_reason: { reason: string; count: number }[];
  /** The reporters' notes, oldest first (who reported is not shown). */
  report_notes: string[];
}

/** The queue's two lists: what waits for a decision, and what the site team hid (to restore). */
export const QUEUE_LISTS = ['waiting', 'hidden'] as const;
export type QueueList = (typeof QUEUE_LISTS)[number];

const FILTER: Record<QueueList, string> = {
  waiting: `c.status = 'held' OR (c.status = 'visible' AND o.comment_id IS NOT NULL)`,
  hidden: `c.status = 'hidden'`,
};
const ORDER: Record<QueueList, string> = { waiting: 'q.waiting_since ASC, q.id ASC', hidden: 'q.id DESC' };

const queueSql = (list: QueueList) => `
WITH open AS (
  SELECT r.comment_id, min(r.created_at) AS first_at, count(*)::int AS reports,
    json_agg(json_build_object('reason', r.reason, 'note', r.note) ORDER BY r.created_at, r.id) AS list
  FROM comment_reports r WHERE r.resolved_at IS NULL GROUP BY r.comment_id
), q AS (
  SELECT c.*, o.reports, o.list, coalesce(LEAST(CASE WHEN c.status = 'held' THEN c.created_at END, o.first_at), c.created_at) AS waiting_since
  FROM comments c JOIN listings l ON l.id = c.listing_id LEFT JOIN open o ON o.comment_id = c.id
  WHERE l.site_id = :siteId AND (${FILTER[list]})
)`;

interface QueueRow {
  id: number;
  listing_id: number;
  slug: string;
  listing_name: string;
  parent_id: number | null;
  user_id: number | null;
  email: string | null;
  display_name: string | null;
  maker: boolean | null;
  body: string;
  hidden_reason: string | null;
  status: CommentStatus;
  created_at: Date;
  waiting_since: Date;
  reports: number | null;
  list: { reason: string; note: string | null }[] | null;
}

/**
 * The site's moderation queue of the discussion: held comments and visible ones with open
 * reports, the longest waiting first, with their text, author, listing and reports; or (`hidden`)
 * the comments the site team hid, the latest first, to restore one.
 */
export async function commentQueue(db: Db, siteId: number, q: { list: QueueList; page: number; perPage: number }) {
  const params = { siteId, limit: q.perPage, offset: (q.page - 1) * q.perPage };
  const [rows, count] = await Promise.all([
    db.raw<{ rows: QueueRow[] }>(
      `${queueSql(q.list)} SELECT q.id, q.listing_id, l.slug, l.name AS listing_name, q.parent_id, q.user_id, u.email, fp.display_name,
         q.user_id = l.owner_id AS maker, q.body, q.hidden_reason, q.status, q.created_at, q.waiting_since, q.reports, q.list
       FROM q JOIN listings l ON l.id = q.listing_id LEFT JOIN users u ON u.id = q.user_id
         LEFT JOIN founder_profiles fp ON fp.user_id = q.user_id
       ORDER BY ${ORDER[q.list]} LIMIT :limit OFFSET :offset`,
      params,
    ),
    db.raw<{ rows: { total: number }[] }>(`${queueSql(q.list)} SELECT count(*)::int AS total FROM q`, params),
  ]);
  return { items: rows.rows.map(queued), page: q.page, per_page: q.perPage, total: count.rows[0]!.total };
}

function queued(r: QueueRow): QueuedComment {
  const reports = r.list ?? [];
  const byReason = new Map<string, number>();
  for (const x of reports) byReason.set(x.reason, (byReason.get(x.reason) ?? 0) + 1);
  return {
    id: r.id,
    listing: { id: r.listing_id, slug: r.slug, name: r.listing_name },
    parent_id: r.parent_id,
    author:
      r.user_id === null
        ? null
        : { user_id: r.user_id, name: r.display_name ?? `Member ${r.user_id}`, email: r.email ?? '', maker: r.maker === true },
    body: r.body,
    hidden_reason: r.hidden_reason,
    status: r.status,
    created_at: r.created_at,
    waiting_since: r.waiting_since,
    open_reports: r.reports ?? 0,
    reports_by_reason: [...byReason]
      .map(([reason, count]) => ({ reason, count }))
      .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)),
    report_notes: reports.flatMap((x) => (x.note ? [x.note] : [])),
  };
}

/** A comment's moderated state, as the audit log keeps it before and after. */
export interface ModerationState {
  status: CommentStatus;
  hidden_reason: string | null;
  open_reports: number;
}

export interface Moderation {
  siteId: number;
  commentId: number;
  action: CommentAction;
  /** For `hide`: shown in the comment's place ("removed by the site team: {reason}"). */
  reason: string | null;
  /** The moderator; null for the admin command line. */
  staffUserId: number | null;
  now: Date;
  /** How the people an approved comment concerns are told (as when a comment is posted shown). */
  notices: CommentNoticeSettings;
}

/** Each action's status change: from which statuses, to which (null: the status stays). */
const MOVES: Record<CommentAction, { from: CommentStatus[]; to: CommentStatus | null; refusal: string }> = {
  approve: { from: ['held'], to: 'visible', refusal: 'Only a comment waiting for review (held) can be approved.' },
  hide: { from: ['visible', 'held'], to: 'hidden', refusal: 'Only a shown or held comment can be hidden.' },
  restore: { from: ['hidden'], to: 'visible', refusal: 'Only a comment the site team hid can be restored.' },
  dismiss: { from: ['visible', 'held', 'hidden'], to: null, refusal: 'Its author deleted the comment: nothing to dismiss.' },
};

/** +1 when the comment becomes counted (visible), −1 when it stops, 0 otherwise. */
const countStep = (from: CommentStatus, to: CommentStatus) => Number(to === 'visible') - Number(from === 'visible');

/**
 * Approves, hides, restores a comment of the site, or dismisses its reports. Every action closes
 * the comment's open reports (the decision answers them). In one transaction under the comment's
 * lock: the status, the listing's `comment_count` (moved by exactly the change in visible
 * comments) and the caller's `record` (the audit row) commit together or not at all.
 */
export async function moderateComment(
  db: Db,
  m: Moderation,
  record: (trx: Knex.Transaction, before: ModerationState, after: ModerationState) => Promise<void>,
): Promise<ModerationState & { comment_id: number; listing_id: number; reports_resolved: number; comment_count: number }> {
  return db.transaction(async (trx) => {
    const row = await trx('comments as c')
      .join('listings as l', 'l.id', 'c.listing_id')
      .where({ 'c.id': m.commentId, 'l.site_id': m.siteId })
      .forUpdate('c')
      .first('c.id', 'c.listing_id', 'c.status', 'c.hidden_reason');
    if (!row) throw notFound('The comment');
    const open = await trx('comment_reports').where({ comment_id: m.commentId }).whereNull('resolved_at').count({ n: '*' });
    const before: ModerationState = {
      status: row.status as CommentStatus,
      hidden_reason: row.hidden_reason,
      open_reports: Number(open[0]!.n),
    };
    const move = MOVES[m.action];
    if (!move.from.includes(before.status)) throw conflict('comment_state_conflict', move.refusal);
    if (m.action === 'dismiss' && before.open_reports === 0)
      throw conflict('comment_state_conflict', 'The comment has no open report to dismiss.');
    const status = move.to ?? before.status;
    const hidden_reason = status === 'hidden' ? (m.action === 'hide' ? m.reason : before.hidden_reason) : null;
    await trx('comments').where({ id: m.commentId }).update({ status, hidden_reason });
    const step = countStep(before.status, status);
    if (step !== 0) await trx('listings').where({ id: row.listing_id }).increment('comment_count', step);
    const resolved = await trx('comment_reports')
      .where({ comment_id: m.commentId })
      .whereNull('resolved_at')
      .update({ resolved_at: m.now, resolved_by: m.staffUserId });
    const after: ModerationState = { status, hidden_reason, open_reports: 0 };
    // Held comments told nobody; approved, they are news now (a restore was news already once).
    if (m.action === 'approve') await tellAboutApprovedComment(trx, m.commentId, m.notices, m.now);
    await record(trx, before, after);
    const listing = await trx('listings').where({ id: row.listing_id }).first('comment_count');
    return {
      ...after,
      comment_id: m.commentId,
      listing_id: row.listing_id,
      reports_resolved: resolved,
      comment_count: listing!.comment_count,
    };
  });
}
