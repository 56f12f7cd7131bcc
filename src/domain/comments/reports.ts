import type { Db } from '../../db/knex.ts';
import { notFound } from '../../errors/errors.ts';

/** Why a comment is reported; the moderation queue sorts and words them. */
export const REPORT_REASONS = ['spam', 'abuse', 'off_topic', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

/**
 * Reports a comment the reporter can see (a visible one of a live listing) for the site team's
 * moderation queue. One report per person and comment: reporting again replaces the reason and
 * the note, and reopens it when a moderator had decided already.
 */
export async function reportComment(
  db: Db,
  reporterId: number,
  commentId: number,
  report: { reason: ReportReason; note?: string | null },
  now: Date,
): Promise<{ comment_id: number; reason: ReportReason }> {
  const shown = await db('comments as c')
    .join('listings as l', 'l.id', 'c.listing_id')
    .where({ 'c.id': commentId, 'c.status': 'visible', 'l.status': 'live' })
    .first('c.id');
  if (!shown) throw notFound('The comment');
  await db('comment_reports')
    .insert({ comment_id: commentId, reporter_id: reporterId, reason: report.reason, note: report.note || null, created_at: now })
    .onConflict(['comment_id', 'reporter_id'])
    .merge({ reason: report.reason, note: report.note || null, created_at: now, resolved_at: null, resolved_by: null });
  return { comment_id: commentId, reason: report.reason };
}
