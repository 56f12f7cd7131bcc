import type { Table } from '../../db/table-types.ts';
import type { BadgeRow } from './badge-check.ts';

/**
 * The tables of launch weeks and slots, badges, votes and the weekly results, as they stand after the last migration, declared for knex's
 * `knex/types/tables` (`db('...')` is then a query over the row type). The rows reuse the
 * domain's types, so they live with their areas; src/db/table-types.ts holds the helpers.
 */
export interface VoteTableRow {
  listing_id: number;
  user_id: number;
  created_at: Date;
  /** A detector's reason code when the vote is discounted (counts 0); null when it counts. */
  discount_reason: string | null;
}

export interface LaunchWeekTableRow {
  site_id: number;
  week_start: string;
  created_at: Date;
}

export interface LaunchSlotTableRow {
  id: number;
  listing_id: number;
  site_id: number;
  week_start: string;
  kind: 'free' | 'paid';
  taken_at: Date;
}

export interface ListingBadgeTableRow extends BadgeRow {
  grace_notified_at: Date | null;
}

export interface BadgeCheckTableRow {
  id: number;
  listing_id: number;
  trigger: string;
  url: string;
  final_url: string | null;
  http_status: number | null;
  status: string;
  detail: string;
  rel: string[];
  checked_at: Date;
}

export interface VoidedVoteTableRow {
  id: number;
  listing_id: number;
  user_id: number | null;
  voted_at: Date;
  in_launch_week: boolean;
  reason: string;
  voided_at: Date;
}

export interface WeeklyResultTableRow {
  site_id: number;
  week: string;
  listing_id: number;
  rank: number;
  score: number;
  votes_removed: number;
  votes_discounted: number;
  closed_at: Date;
}

/** What is kept with a vote for 30 days (to find vote rings); the network only as a keyed hash. */
export interface VoteSignalTableRow {
  listing_id: number;
  user_id: number;
  voted_at: Date;
  account_age_s: number;
  confirmed_by: string;
  network_hash: string | null;
  network_key: string;
  ua_family: string;
  referrer_host: string | null;
}

/** A listing's vote signals after 30 days: counts only. */
export interface VoteSignalAggregateTableRow {
  listing_id: number;
  votes: number;
  account_ages: Record<string, number>;
  ua_families: Record<string, number>;
  referrer_hosts: Record<string, number>;
  updated_at: Date;
}

export interface VoteFlagTableRow {
  id: number;
  listing_id: number;
  user_id: number | null;
  week: string;
  reason: string;
  detail: string;
  state: 'discounted' | 'kept' | 'voided';
  flagged_at: Date;
  decided_at: Date | null;
}

export interface VoteButtonViewTableRow {
  listing_id: number;
  hour: Date;
  views: number;
}

declare module 'knex/types/tables.js' {
  interface Tables {
    votes: Table<VoteTableRow, 'created_at' | 'discount_reason'>;
    launch_weeks: Table<LaunchWeekTableRow, 'created_at'>;
    launch_slots: Table<LaunchSlotTableRow, 'id' | 'taken_at'>;
    listing_badges: Table<ListingBadgeTableRow, 'badge_url' | 'status' | 'checked_at' | 'missing_since' | 'detail' | 'grace_notified_at'>;
    badge_checks: Table<BadgeCheckTableRow, 'id' | 'final_url' | 'http_status' | 'rel' | 'checked_at'>;
    voided_votes: Table<VoidedVoteTableRow, 'id' | 'user_id' | 'voided_at'>;
    weekly_results: Table<WeeklyResultTableRow, 'closed_at' | 'votes_discounted'>;
    vote_signals: Table<VoteSignalTableRow>;
    vote_signal_aggregates: Table<VoteSignalAggregateTableRow, 'votes' | 'account_ages' | 'ua_families' | 'referrer_hosts' | 'updated_at'>;
    vote_flags: Table<VoteFlagTableRow, 'id' | 'user_id' | 'state' | 'flagged_at' | 'decided_at'>;
    vote_button_views: Table<VoteButtonViewTableRow, 'views'>;
  }
}
