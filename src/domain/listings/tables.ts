import type { Table, Timestamps } from '../../db/table-types.ts';
import type { ClaimRow } from '../claims/claims.ts';
import type { CrawledPage } from '../crawl/types.ts';
import type { DraftRow } from '../drafts/drafts.ts';
import type { ListingRow } from './listing-row.ts';
import type { ListingUpdateRow } from '../updates/updates.ts';

/**
 * The tables of listings and what owners write on them (drafts, updates, founders, claims, media), search and page counts, as they stand after the last migration, declared for knex's
 * `knex/types/tables` (`db('...')` is then a query over the row type). The rows reuse the
 * domain's types, so they live with their areas; src/db/table-types.ts holds the helpers.
 */
/** Every column of listings; ListingRow is the part the service reads. */
export interface ListingTableRow extends ListingRow {
  live_at: Date | null;
  week_votes: number;
  /** Visible comments of its discussion (045), moved with them. */
  comment_count: number;
  /** tsvectors GENERATED ALWAYS from name, headline and summary (016); nullable columns to PostgreSQL. */
  search: string | null;
  search_name: string | null;
  search_lead: string | null;
  /** Set while the site team has it unlisted (043): the status a restore gives back. */
  status_before_unlisted: string | null;
}

export interface DraftTableRow extends DraftRow {
  /** The crawled pages while the fields are drafted; dropped once they served. */
  pages: CrawledPage[] | null;
}

export interface InterviewQuestionTableRow {
  id: number;
  site_id: number;
  position: number;
  text: string;
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface ListingVersionTableRow {
  id: number;
  listing_id: number;
  editor_id: number | null;
  operation: string;
  source_listing_id: number | null;
  request_id: string | null;
  changes: Record<string, { before: unknown; after: unknown }>;
  created_at: Date;
}

export interface MilestoneTableRow {
  id: number;
  listing_id: number;
  date: string;
  title: string;
  description: string | null;
  url: string | null;
  created_at: Date;
}

export type ListingUpdateTableRow = ListingUpdateRow;

export interface ListingFollowerTableRow {
  listing_id: number;
  user_id: number;
  created_at: Date;
  last_mailed_at: Date | null;
  digest_due_at: Date | null;
}

export interface FounderProfileTableRow {
  user_id: number;
  display_name: string | null;
  bio: string | null;
  links: unknown;
  created_at: Date;
  updated_at: Date;
}

export interface FounderPhotoTableRow {
  user_id: number;
  image: Buffer;
  etag: string;
  width: number;
  height: number;
  source_format: string;
  source_bytes: number;
  updated_at: Date;
}

export interface MediaFileTableRow {
  key: string;
  content_type: string;
  body: Buffer;
  etag: string;
  width: number;
  height: number;
  created_at: Date;
}

export interface InterviewAnswerTableRow {
  user_id: number;
  question_id: number;
  answer: string;
  created_at: Date;
  updated_at: Date;
}

export interface FounderStoryTableRow {
  listing_id: number;
  title: string | null;
  how_started: string | null;
  problem: string | null;
  what_built: string | null;
  hard_parts: string | null;
  milestones: string | null;
  whats_next: string | null;
  published_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The claims table: a ClaimRow without the columns its views join in. */
export interface ClaimTableRow extends Omit<
  ClaimRow,
  'slug' | 'listing_name' | 'listing_url' | 'check_at' | 'check_result' | 'check_detail'
> {
  canceled_by_claim_id: number | null;
  decided_by: number | null;
}

export interface ClaimCheckTableRow {
  id: number;
  claim_id: number;
  trigger: string;
  result: 'found' | 'not_found' | 'error';
  detail: string;
  checked_at: Date;
}

export interface ClaimEmailLinkTableRow {
  id: number;
  claim_id: number;
  token_hash: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export interface SearchChangeTableRow {
  /** xid8: pg hands it over as a string. */
  xid: string;
  listing_id: number;
  at: Date;
}

/** Where a search index outside PostgreSQL stands in search_changes (053, src/search/opensearch-feed.ts). */
export interface SearchFeedTableRow {
  name: string;
  index_name: string;
  /** xid8, as a string: the xmin of the last round's snapshot, where the next looks from. */
  from_xid: string;
  /** `xid:listing` of the changes at or after from_xid already applied. */
  applied: string[];
  /** The round last claimed: the external version of the documents it wrote. */
  round: number;
  fed_at: Date;
}

export interface ListingHourlyCountTableRow {
  listing_id: number;
  hour: Date;
  referrer_host: string;
  views: number;
  clicks: number;
}

export interface PageCountSeenTableRow {
  seen: Buffer;
  hour: Date;
}

declare module 'knex/types/tables.js' {
  interface Tables {
    listings: Table<
      ListingTableRow,
      | 'id'
      | 'owner_id'
      | 'status'
      | 'plan'
      | 'launch_week'
      | 'unlocked_sections'
      | 'headline'
      | 'summary'
      | 'seo_title'
      | 'seo_description'
      | 'logo_url'
      | 'image_url'
      | 'contact_email'
      | 'facts'
      | 'socials'
      | 'faqs'
      | 'categories'
      | 'evidence'
      | 'votes'
      | 'live_at'
      | 'follower_count'
      | 'week_votes'
      | 'status_before_unlisted'
      | 'comment_count'
      | Timestamps,
      'search' | 'search_name' | 'search_lead'
    >;
    drafts: Table<
      DraftTableRow,
      'id' | 'status' | 'failure_code' | 'failure_reason' | 'pages' | 'fields' | 'evidence' | 'listing_id' | Timestamps
    >;
    interview_questions: Table<InterviewQuestionTableRow, 'id' | 'active' | Timestamps>;
    listing_versions: Table<ListingVersionTableRow, 'id' | 'editor_id' | 'source_listing_id' | 'request_id' | 'created_at'>;
    milestones: Table<MilestoneTableRow, 'id' | 'description' | 'url' | 'created_at'>;
    listing_updates: Table<ListingUpdateTableRow, 'id' | 'author_id' | 'published_at'>;
    listing_followers: Table<ListingFollowerTableRow, 'created_at' | 'last_mailed_at' | 'digest_due_at'>;
    founder_profiles: Table<FounderProfileTableRow, 'display_name' | 'bio' | 'links' | Timestamps>;
    founder_photos: Table<FounderPhotoTableRow, 'updated_at'>;
    media_files: Table<MediaFileTableRow, 'created_at'>;
    interview_answers: Table<InterviewAnswerTableRow, Timestamps>;
    founder_stories: Table<
      FounderStoryTableRow,
      'title' | 'how_started' | 'problem' | 'what_built' | 'hard_parts' | 'milestones' | 'whats_next' | 'published_at' | Timestamps
    >;
    claims: Table<
      ClaimTableRow,
      | 'id'
      | 'email'
      | 'status'
      | 'created_at'
      | 'closed_at'
      | 'canceled_by_claim_id'
      | 'decision'
      | 'decision_reason'
      | 'decided_by'
      | 'decided_at'
    >;
    claim_checks: Table<ClaimCheckTableRow, 'id' | 'checked_at'>;
    claim_email_links: Table<ClaimEmailLinkTableRow, 'id' | 'created_at' | 'used_at'>;
    search_terms: Table<{ term: string }>;
    search_lexemes: Table<{ lexeme: string }>;
    search_changes: Table<SearchChangeTableRow, 'xid' | 'at'>;
    search_feeds: Table<SearchFeedTableRow, 'applied' | 'round' | 'fed_at'>;
    listing_hourly_counts: Table<ListingHourlyCountTableRow, 'referrer_host' | 'views' | 'clicks'>;
    page_count_seen: Table<PageCountSeenTableRow>;
  }
}
