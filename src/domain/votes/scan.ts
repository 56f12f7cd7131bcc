import { announceListingChange } from '../../db/notify.ts';
import type { Knex } from 'knex';
import type { Db } from '../../db/knex.ts';
import { addWeeks, weekStartMs } from '../../workflows/contracts/weeks.ts';
import { scanCommentVotes, type CommentScanOutcome } from './comment-scan.ts';
import { detectWeek } from './detectors/index.ts';
import { HOUR_MS, type Detection, type VoteWeek } from './detectors/types.ts';

/** What one scan of a site's week did. */
export interface ScanOutcome {
  /** Votes of the week the detectors looked at. */
  votes: number;
  /** Votes the detectors flag now. */
  detected: number;
  /** Flags this scan raised, and detector flags it withdrew (the votes no longer look like a ring). */
  raised: number;
  cleared: number;
  /** Votes of the week discounted after the scan (count 0). */
  discounted: number;
  /** The same detectors over the week's comment votes (src/domain/votes/comment-scan.ts). */
  comment_votes: CommentScanOutcome;
}

/**
 * The launch week of a site's live listings as the detectors see it: every vote cast in the
 * listings' launch week, with its signals (a vote from before signals were kept has none) and
 * the account's creation time, and the hourly Vote button views.
 */
export async function loadWeek(db: Db | Knex.Transaction, siteId: number, weekStart: string): Promise<VoteWeek> {
  const from = new Date(weekStartMs(weekStart));
  const to = new Date(weekStartMs(addWeeks(weekStart, 1)));
  const rows: {
    listing_id: number;
    user_id: number;
    created_at: Date;
    account_created_at: Date;
    network_hash: string | null;
    ua_family: string | null;
    referrer_host: string | null;
  }[] = await db('votes as v')
    .join('listings as l', 'l.id', 'v.listing_id')
    .join('users as u', 'u.id', 'v.user_id')
    .leftJoin('vote_signals as s', function () {
      this.on('s.listing_id', 'v.listing_id').andOn('s.user_id', 'v.user_id');
    })
    .where({ 'l.site_id': siteId, 'l.launch_week': weekStart, 'l.status': 'live' })
    .andWhere('v.created_at', '>=', from)
    .andWhere('v.created_at', '<', to)
    .orderBy(['v.listing_id', 'v.user_id'])
    .select(
      'v.listing_id',
      'v.user_id',
      'v.created_at',
      'u.created_at as account_created_at',
      's.network_hash',
      's.ua_family',
      's.referrer_host',
    );
  const views: { listing_id: number; hour: Date; views: number }[] = await db('vote_button_views as b')
    .join('listings as l', 'l.id', 'b.listing_id')
    .where({ 'l.site_id': siteId, 'l.launch_week': weekStart })
    .andWhere('b.hour', '>=', new Date(from.getTime() - HOUR_MS))
    .andWhere('b.hour', '<', to)
    .select('b.listing_id', 'b.hour', 'b.views');
  return {
    votes: rows.map((r) => ({
      listingId: r.listing_id,
      userId: r.user_id,
      at: r.created_at.getTime(),
      accountCreatedAt: r.account_created_at.getTime(),
      network: r.network_hash,
      uaFamily: r.ua_family ?? 'none',
      referrerHost: r.referrer_host,
    })),
    views: views.map((v) => ({ listingId: v.listing_id, hour: v.hour.getTime(), views: v.views })),
  };
}

/**
 * Scans a site's launch week: runs every detector over its votes, records a flag per detected
 * vote (`discounted`), withdraws the detector flags no longer detected, and brings the votes'
 * `discount_reason` and the listings' counters in line, in one transaction (one scan of a week
 * at a time), then the same detectors over the week's comment votes. Flags the site team decided (`kept`, `voided`) stay as decided. Deterministic: the
 * same votes give the same flags and the same scores, however often or late it runs.
 */
export async function scanWeek(db: Db, siteId: number, weekStart: string): Promise<ScanOutcome> {
  return db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`vote-scan:${siteId}:${weekStart}`]);
    const week = await loadWeek(trx, siteId, weekStart);
    const detected = detectWeek(week);
    const existing: { id: number; listing_id: number; user_id: number | null; state: string; reason: string }[] = await trx(
      'vote_flags as f',
    )
      .join('listings as l', 'l.id', 'f.listing_id')
      .where({ 'l.site_id': siteId, 'f.week': weekStart })
      .select('f.id', 'f.listing_id', 'f.user_id', 'f.state', 'f.reason');
    const byVote = new Map(existing.map((f) => [`${f.listing_id}:${f.user_id}`, f]));
    const seen = new Set<string>();
    let raised = 0;
    for (const d of detected) {
      const key = `${d.listingId}:${d.userId}`;
      seen.add(key);
      const flag = byVote.get(key);
      if (!flag) {
        // A vote judged under another week (its listing moved) keeps that flag.
        const inserted = await trx('vote_flags')
          .insert(flagRow(d, weekStart))
          .onConflict(['listing_id', 'user_id'])
          .ignore()
          .returning('id');
        raised += inserted.length;
      } else if (flag.state === 'discounted' && flag.reason !== d.reason) {
        await trx('vote_flags').where({ id: flag.id }).update({ reason: d.reason, detail: d.detail });
      }
    }
    const stale = existing.filter((f) => f.state === 'discounted' && !seen.has(`${f.listing_id}:${f.user_id}`)).map((f) => f.id);
    if (stale.length > 0) await trx('vote_flags').whereIn('id', stale).delete();
    await applyDiscounts(trx, siteId, weekStart);
    const commentVotes = await scanCommentVotes(trx, siteId, weekStart);
    const [{ count }] = await trx('votes as v')
      .join('listings as l', 'l.id', 'v.listing_id')
      .where({ 'l.site_id': siteId, 'l.launch_week': weekStart })
      .whereNotNull('v.discount_reason')
      .count({ count: '*' });
    return {
      votes: week.votes.length,
      detected: detected.length,
      raised,
      cleared: stale.length,
      discounted: Number(count),
      comment_votes: commentVotes,
    };
  });
}

const flagRow = (d: Detection, weekStart: string) => ({
  listing_id: d.listingId,
  user_id: d.userId,
  week: weekStart,
  reason: d.reason,
  detail: d.detail,
});

/**
 * Sets each vote's `discount_reason` from its flag (a `discounted` flag discounts it; none, or a
 * `kept` one, lets it count) and moves the listings' counters by the difference, in one
 * statement under the votes' row locks (a vote taken back meanwhile is either seen or gone).
 */
export async function applyDiscounts(db: Db | Knex.Transaction, siteId: number, weekStart: string, listingId?: number): Promise<void> {
  const { rows } = await db.raw(
    `WITH target AS (
       SELECT v.listing_id, v.user_id, v.discount_reason AS old_reason, f.reason AS new_reason
       FROM votes v
       JOIN listings l ON l.id = v.listing_id
       LEFT JOIN vote_flags f ON f.listing_id = v.listing_id AND f.user_id = v.user_id AND f.state = 'discounted'
       WHERE l.site_id = :siteId AND l.launch_week = :weekStart AND (:listingId::int IS NULL OR l.id = :listingId::int)
         AND v.discount_reason IS DISTINCT FROM f.reason
       FOR UPDATE OF v
     ), changed AS (
       UPDATE votes v SET discount_reason = t.new_reason FROM target t
       WHERE v.listing_id = t.listing_id AND v.user_id = t.user_id
       RETURNING v.listing_id, v.created_at,
         CASE WHEN t.old_reason IS NULL THEN -1 WHEN t.new_reason IS NULL THEN 1 ELSE 0 END AS step
     ), delta AS (
       SELECT c.listing_id, sum(c.step)::int AS d,
         sum(CASE WHEN in_launch_week(c.created_at, l.launch_week) THEN c.step ELSE 0 END)::int AS wd
       FROM changed c JOIN listings l ON l.id = c.listing_id GROUP BY c.listing_id
     )
     UPDATE listings l SET votes = l.votes + delta.d, week_votes = l.week_votes + delta.wd
     FROM delta WHERE l.id = delta.listing_id
     RETURNING l.id`,
    { siteId, weekStart, listingId: listingId ?? null },
  );
  await announceListingChange(
    db,
    'votes',
    (rows as { id: number }[]).map((r) => r.id),
  );
}
