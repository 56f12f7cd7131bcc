import type { Knex } from 'knex';
import type { Db } from '../../db/knex.ts';
import { notFound } from '../../errors.ts';
import { isoWeekLabel } from '../ranking/weeks.ts';

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
}

const IN_WEEK = (column: string) =>
  `${column} >= (l.launch_week::timestamp AT TIME ZONE 'UTC') AND ${column} < ((l.launch_week + 7)::timestamp AT TIME ZONE 'UTC')`;

/** The vote audit of a live listing, by slug (404 otherwise). */
export async function voteAudit(db: Db, slug: string): Promise<VoteAudit> {
  const listing = await db('listings as l').where({ 'l.slug': slug, 'l.status': 'live' }).first('l.id', 'l.slug', 'l.launch_week');
  if (!listing) throw notFound(`Listing "${slug}"`);
  const week = listing.launch_week;
  if (!week) {
    return {
      slug: listing.slug,
      week: null,
      week_start: null,
      votes_cast: 0,
      votes_counted: 0,
      votes_discounted: 0,
      discounted_by_reason: [],
      votes_voided: 0,
      voided_by_reason: [],
      final: false,
    };
  }
  const [counted, discounted, voided, frozen] = await Promise.all([
    db('votes as v')
      .join('listings as l', 'l.id', 'v.listing_id')
      .where('v.listing_id', listing.id)
      .whereNull('v.discount_reason')
      .whereRaw(IN_WEEK('v.created_at'))
      .count({ count: '*' }),
    reasons(
      db('votes as v')
        .join('listings as l', 'l.id', 'v.listing_id')
        .where('v.listing_id', listing.id)
        .whereNotNull('v.discount_reason')
        .whereRaw(IN_WEEK('v.created_at')),
      'v.discount_reason',
      db,
    ),
    reasons(db('voided_votes as x').where({ 'x.listing_id': listing.id, 'x.in_launch_week': true }), 'x.reason', db),
    db('weekly_results').where({ listing_id: listing.id, week }).first('score'),
  ]);
  const votesCounted = Number(counted[0].count);
  const sum = (xs: ReasonCount[]) => xs.reduce((a, r) => a + r.count, 0);
  return {
    slug: listing.slug,
    week: isoWeekLabel(week),
    week_start: week,
    votes_cast: votesCounted + sum(discounted) + sum(voided),
    votes_counted: votesCounted,
    votes_discounted: sum(discounted),
    discounted_by_reason: discounted,
    votes_voided: sum(voided),
    voided_by_reason: voided,
    final: frozen !== undefined,
  };
}

async function reasons(q: Knex.QueryBuilder, column: string, db: Db): Promise<ReasonCount[]> {
  const rows: { reason: string; count: number }[] = await q
    .groupBy(column)
    .orderByRaw(`count(*) DESC, ${column}`)
    .select(db.raw(`${column} AS reason`), db.raw('count(*)::int AS count'));
  return rows;
}
