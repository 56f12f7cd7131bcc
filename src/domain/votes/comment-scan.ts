import type { Knex } from 'knex';
import { addWeeks, weekStartMs } from '../../workflows/contracts/weeks.ts';
import { detectWeek } from './detectors/index.ts';
import { HOUR_MS, type Detection, type VoteWeek } from './detectors/types.ts';

/** What the scan of a week's comment votes did. */
export interface CommentScanOutcome {
  /** Comment votes of the week the detectors looked at. */
  votes: number;
  /** Of those, discounted after the scan (count 0 in their comment's score). */
  discounted: number;
}

// The comment votes a scan of the week judges: cast in the launch week on comments of the site's live listings of that week.
const FROM_VOTES = `FROM comment_votes v JOIN comments c ON c.id = v.comment_id JOIN listings l ON l.id = c.listing_id`;
const IN_WEEK = `WHERE l.site_id = :siteId AND l.launch_week = :weekStart AND l.status = 'live'
  AND v.created_at >= :from AND v.created_at < :to`;

const weekWindow = (siteId: number, weekStart: string) => ({
  siteId,
  weekStart,
  from: new Date(weekStartMs(weekStart)),
  to: new Date(weekStartMs(addWeeks(weekStart, 1))),
});

/**
 * The comment votes of a site's launch week as the detectors see them: every upvote cast during
 * the week on a comment of a listing launching that week, with the comment in the listing's place
 * (a ring of comments is found the way a ring of listings is). Comment votes keep no signals, so
 * they carry no network (`network_cluster` finds nothing in them) and no referrer; the traffic a
 * burst is measured against is the comment's listing page: the hourly Vote button views of its
 * listing, as every comment is read on that page.
 */
async function loadCommentWeek(trx: Knex.Transaction, siteId: number, weekStart: string): Promise<VoteWeek> {
  const span = weekWindow(siteId, weekStart);
  const { rows } = await trx.raw<{ rows: { comment_id: number; listing_id: number; user_id: number; created_at: Date; account: Date }[] }>(
    `SELECT v.comment_id, c.listing_id, v.user_id, v.created_at, u.created_at AS account
     ${FROM_VOTES} JOIN users u ON u.id = v.user_id ${IN_WEEK} ORDER BY v.comment_id, v.user_id`,
    span,
  );
  // Each listing's comments that got votes, to give every one of them its listing's views.
  const comments = new Map<number, Set<number>>();
  for (const r of rows) comments.set(r.listing_id, (comments.get(r.listing_id) ?? new Set()).add(r.comment_id));
  const views: { listing_id: number; hour: Date; views: number }[] = comments.size
    ? await trx('vote_button_views')
        .whereIn('listing_id', [...comments.keys()])
        .andWhere('hour', '>=', new Date(span.from.getTime() - HOUR_MS))
        .andWhere('hour', '<', span.to)
        .select('listing_id', 'hour', 'views')
    : [];
  return {
    votes: rows.map((r) => ({
      listingId: r.comment_id,
      userId: r.user_id,
      at: r.created_at.getTime(),
      accountCreatedAt: r.account.getTime(),
      network: null,
      uaFamily: 'none',
      referrerHost: null,
    })),
    views: views.flatMap((v) =>
      [...(comments.get(v.listing_id) ?? [])].map((id) => ({ listingId: id, hour: v.hour.getTime(), views: v.views })),
    ),
  };
}

/**
 * Runs the ring detectors over the week's comment votes and brings each vote's `discount_reason`
 * in line (a detected vote is kept and counts 0; one no longer detected counts again), moving the
 * comments' `votes` by the difference under the votes' row locks. Called inside the week's scan
 * transaction, so one scan of a week at a time; deterministic like it. There is no review of
 * comment-vote flags: the next scan decides again from the votes.
 */
export async function scanCommentVotes(trx: Knex.Transaction, siteId: number, weekStart: string): Promise<CommentScanOutcome> {
  const week = await loadCommentWeek(trx, siteId, weekStart);
  const detected: Detection[] = detectWeek(week);
  const flagged = JSON.stringify(detected.map((d) => ({ comment_id: d.listingId, user_id: d.userId, reason: d.reason })));
  const params = { ...weekWindow(siteId, weekStart), flagged };
  await trx.raw(
    `WITH f AS (SELECT * FROM json_to_recordset(:flagged::json) AS f(comment_id int, user_id int, reason text)),
     target AS (
       SELECT v.comment_id, v.user_id, v.discount_reason AS old_reason, f.reason AS new_reason
       ${FROM_VOTES} LEFT JOIN f ON f.comment_id = v.comment_id AND f.user_id = v.user_id
       ${IN_WEEK} AND v.discount_reason IS DISTINCT FROM f.reason
       FOR UPDATE OF v
     ), changed AS (
       UPDATE comment_votes v SET discount_reason = t.new_reason FROM target t
       WHERE v.comment_id = t.comment_id AND v.user_id = t.user_id
       RETURNING v.comment_id, CASE WHEN t.old_reason IS NULL THEN -1 WHEN t.new_reason IS NULL THEN 1 ELSE 0 END AS step
     ), delta AS (SELECT comment_id, sum(step)::int AS d FROM changed GROUP BY comment_id)
     UPDATE comments c SET votes = c.votes + delta.d FROM delta WHERE c.id = delta.comment_id`,
    params,
  );
  return { votes: week.votes.length, discounted: detected.length };
}
