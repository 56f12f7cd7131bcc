import type { Db } from '../../db/knex.ts';
import { notFound } from '../../errors/errors.ts';
import { isoWeekLabel } from '../../workflows/contracts/weeks.ts';

/** Votes per reason. */
export interface ReasonCount {
  reason: string;
  count: number;
}

/** The public audit of a listing's launch week: counts only, no account, no network. */
export interface VoteAudit {
  slug: string;
  /** ISO week of the launch (e.g. 2026-W48); null when the listing has no launch week. */
  week: string | null;
  week_start: string | null;
  /** Votes cast during the launch week: counted + discounted + voided. */
  votes_cast: number;
  votes_counted: number;
  votes_discounted: number;
  discounted_by_reason: ReasonCount[];
  votes_voided: number;
  voided_by_reason: ReasonCount[];
  /** Whether the week's results are frozen (the weekly close ran). */
  final: boolean;
  /** Upvotes of the listing's comments cast in its launch week, judged by the same detectors. */
  comment_votes: CommentVoteCounts;
}

/** The launch week's comment votes: cast = counted + discounted (the site team removes none). */
export interface CommentVoteCounts {
  cast: number;
  counted: number;
  discounted: number;
  discounted_by_reason: ReasonCount[];
}

/**
 * One statement (the listing page shows the audit on every view): the launch week's votes grouped
 * by discount reason (NULL: counted), the removed votes by reason, the week's comment votes by
 * discount reason, and whether the week is frozen.
 */
const AUDIT_SQL = `
WITH l AS (SELECT id, slug, launch_week FROM listings WHERE slug = :slug AND status = 'live'),
v AS (
  SELECT v.discount_reason AS reason, count(*)::int AS count
  FROM votes v JOIN l ON l.id = v.listing_id
  WHERE in_launch_week(v.created_at, l.launch_week)
  GROUP BY v.discount_reason
),
cv AS (
  SELECT v.discount_reason AS reason, count(*)::int AS count
  FROM comment_votes v JOIN comments c ON c.id = v.comment_id JOIN l ON l.id = c.listing_id
  WHERE in_launch_week(v.created_at, l.launch_week)
  GROUP BY v.discount_reason
),
x AS (
  SELECT x.reason, count(*)::int AS count
  FROM voided_votes x JOIN l ON l.id = x.listing_id
  WHERE x.in_launch_week
  GROUP BY x.reason
)
SELECT l.slug, to_char(l.launch_week, 'YYYY-MM-DD') AS week_start,
  coalesce((SELECT sum(count) FROM v WHERE reason IS NULL), 0)::int AS counted,
  coalesce((SELECT json_agg(json_build_object('reason', reason, 'count', count) ORDER BY count DESC, reason) FROM v WHERE reason IS NOT NULL), '[]') AS discounted,
  coalesce((SELECT json_agg(json_build_object('reason', reason, 'count', count) ORDER BY count DESC, reason) FROM x), '[]') AS voided,
  coalesce((SELECT sum(count) FROM cv WHERE reason IS NULL), 0)::int AS comments_counted,
  coalesce((SELECT json_agg(json_build_object('reason', reason, 'count', count) ORDER BY count DESC, reason) FROM cv WHERE reason IS NOT NULL), '[]') AS comments_discounted,
  EXISTS (SELECT 1 FROM weekly_results r WHERE r.listing_id = l.id AND r.week = l.launch_week) AS final
FROM l`;

interface AuditRow {
  slug: string;
  week_start: string | null;
  counted: number;
  discounted: ReasonCount[];
  voided: ReasonCount[];
  comments_counted: number;
  comments_discounted: ReasonCount[];
  final: boolean;
}

/** The vote audit of a live listing, by slug (404 otherwise). */
export async function voteAudit(db: Db, slug: string): Promise<VoteAudit> {
  const { rows } = await db.raw<{ rows: AuditRow[] }>(AUDIT_SQL, { slug });
  const row = rows[0];
  if (!row) throw notFound(`Listing "${slug}"`);
  // Without a launch week there is no week to audit: nothing counts in it.
  if (row.week_start === null)
    Object.assign(row, { counted: 0, discounted: [], voided: [], comments_counted: 0, comments_discounted: [], final: false });
  const sum = (xs: ReasonCount[]) => xs.reduce((a, r) => a + r.count, 0);
  return {
    slug: row.slug,
    week: row.week_start === null ? null : isoWeekLabel(row.week_start),
    week_start: row.week_start,
    votes_cast: row.counted + sum(row.discounted) + sum(row.voided),
    votes_counted: row.counted,
    votes_discounted: sum(row.discounted),
    discounted_by_reason: row.discounted,
    votes_voided: sum(row.voided),
    voided_by_reason: row.voided,
    final: row.final,
    comment_votes: {
      cast: row.comments_counted + sum(row.comments_discounted),
      counted: row.comments_counted,
      discounted: sum(row.comments_discounted),
      discounted_by_reason: row.comments_discounted,
    },
  };
}
