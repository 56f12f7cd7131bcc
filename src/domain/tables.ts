import type { Knex } from 'knex';
import type { Scope } from '../auth/scopes.ts';
import type { ClaimRow } from './claims/claims.ts';
import type { CrawledPage } from './crawl/types.ts';
import type { DraftRow } from './drafts/drafts.ts';
import type { BadgeRow } from './launches/badge-check.ts';
import type { ListingRow } from './listings/listing-row.ts';
import type { toPaymentEvent } from './orders/payment-port.ts';
import type { OrderLineRow, OrderRow } from './orders/order-views.ts';
import type { PromoCode } from './orders/promos.ts';
import type { SiteSettings } from './sites/sites.ts';
import type { ListingUpdateRow } from './updates/updates.ts';
import type { WebhookEventType } from './webhooks/events.ts';

// Every table of src/db/migrations as it stands after the last migration, declared once for
// knex's `knex/types/tables`: `db('orders')` is then a query over OrderRow. It lives in the domain,
// not in src/db, because the rows reuse the domain's types (statuses, JSON shapes) and src/db
// imports nothing above it (.dependency-cruiser.cjs). tsconfig's `include` loads it.
// Dropped tables (promo_attempts, oauth_registrations: 023; signin_attempts: 025) are not here.

/**
 * An insert or update value: the column's type, SQL (`db.fn.now()`, `db.raw(...)`), or for jsonb,
 * array and timestamp columns the text PostgreSQL reads them from (`JSON.stringify(...)`, an ISO time).
 */
type Writable<T> = { [K in keyof T]: T[K] | Knex.Raw | (NonNullable<T[K]> extends object ? string : never) };

/**
 * A table whose inserts may leave out the `Defaulted` columns (generated ids, DEFAULTs, nullable
 * columns) and never write the `Generated` ones (GENERATED ALWAYS).
 */
type Table<Row, Defaulted extends keyof Row = never, Generated extends keyof Row = never> = Knex.CompositeTableType<
  Row,
  Writable<Omit<Row, Defaulted | Generated> & Partial<Pick<Row, Exclude<Defaulted, Generated>>>>,
  Partial<Writable<Omit<Row, Generated>>>
>;

type Timestamps = 'created_at' | 'updated_at';

export interface SiteTableRow {
  id: number;
  key: string;
  name: string;
  host: string | null;
  is_default: boolean;
  /** SiteSettings, and whatever else an operator keeps there. */
  settings: SiteSettings & Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export interface UserTableRow {
  id: number;
  email: string;
  password_hash: string | null;
  email_verified_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface ApiKeyTableRow {
  id: number;
  user_id: number;
  name: string;
  prefix: string;
  key_hash: string;
  scopes: Scope[];
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface IdempotencyKeyTableRow {
  credential: string;
  operation: string;
  key: string;
  request_hash: string;
  state: string;
  response_status: number | null;
  response_body: unknown;
  created_at: Date;
  expires_at: Date;
}

/** Every column of listings; ListingRow is the part the service reads. */
export interface ListingTableRow extends ListingRow {
  live_at: Date | null;
  week_votes: number;
  /** tsvectors GENERATED ALWAYS from name, headline and summary (016); nullable columns to PostgreSQL. */
  search: string | null;
  search_name: string | null;
  search_lead: string | null;
}

export interface DraftTableRow extends DraftRow {
  /** The crawled pages while the fields are drafted; dropped once they served. */
  pages: CrawledPage[] | null;
}

export interface VoteTableRow {
  listing_id: number;
  user_id: number;
  created_at: Date;
  /** A detector's reason code when the vote is discounted (counts 0); null when it counts. */
  discount_reason: string | null;
}

export interface ProductTableRow {
  id: number;
  site_id: number;
  key: string;
  name: string;
  description: string;
  price_cents: number;
  needs_listing: boolean;
  options: Record<string, unknown>;
  active: boolean;
  created_at: Date;
  updated_at: Date;
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

export interface MailOutboxTableRow {
  id: number;
  to_address: string;
  subject: string;
  body_text: string;
  dedupe_key: string | null;
  created_at: Date;
  sent_at: Date | null;
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date;
  failed_at: Date | null;
  recipient_id: number | null;
  mail_kind: string | null;
  listing_id: number | null;
  list_unsubscribe: string | null;
}

export interface MailStopTableRow {
  id: number;
  user_id: number;
  kind: string;
  listing_id: number | null;
  created_at: Date;
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

export interface NotificationTableRow {
  id: number;
  user_id: number;
  kind: string;
  listing_update_id: number | null;
  created_at: Date;
  mail_pending: boolean;
  listing_id: number | null;
  title: string | null;
  body: string | null;
  dedupe_key: string | null;
  claim_id: number | null;
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

export interface WebSessionTableRow {
  id_hash: string;
  user_id: number;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

export interface AccountTokenTableRow {
  id: number;
  user_id: number;
  purpose: 'verify_email' | 'reset_password';
  token_hash: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export interface AppSecretTableRow {
  name: string;
  value: Buffer;
  created_at: Date;
}

export interface OauthPayloadTableRow {
  model: string;
  id: string;
  payload: Record<string, unknown>;
  grant_id: string | null;
  user_code: string | null;
  uid: string | null;
  expires_at: Date | null;
  consumed_at: Date | null;
}

export interface OauthRevokedGrantTableRow {
  grant_id: string;
  revoked_at: Date;
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

/** The claims table: a ClaimRow without the columns its views join in. */
export interface ClaimTableRow extends Omit<
  ClaimRow,
  'slug' | 'listing_name' | 'listing_url' | 'check_at' | 'check_result' | 'check_detail'
> {
  canceled_by_claim_id: number | null;
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

export interface PromoCodeTableRow extends PromoCode {
  created_at: Date;
}

export interface PromoRedemptionTableRow {
  id: number;
  promo_code_id: number;
  order_id: number;
  user_id: number;
  state: 'reserved' | 'counted' | 'released';
  created_at: Date;
}

export interface InvoiceSequenceTableRow {
  site_id: number;
  last_number: number;
}

export interface PaymentEventTableRow {
  id: number;
  provider: string;
  provider_event_id: string;
  type: string;
  order_number: string | null;
  /** The provider's event as the payment port reads it. */
  payload: Parameters<typeof toPaymentEvent>[0];
  received_at: Date;
}

/** The test payment adapter's methods and where a simulated payment stands (src/payments/test-provider). */
export type TestPaymentMethod = 'card' | 'wallet' | 'account' | 'crypto';
export type TestPaymentStatus = 'succeeded' | 'declined' | 'requires_action' | 'awaiting_approval' | 'processing' | 'refunded';

export interface TestPaymentTableRow {
  id: string;
  order_number: string;
  method: TestPaymentMethod;
  status: TestPaymentStatus;
  amount_cents: number;
  currency: string;
  created_at: Date;
  refunds_refused: boolean;
}

/** A press of Pay on the pay page (see domain/orders/payment-attempts.ts). */
export interface PaymentAttemptTableRow {
  id: number;
  order_id: number;
  state: 'charging' | 'action' | 'processing' | 'succeeded' | 'declined' | 'released' | 'abandoned';
  provider_payment_id: string | null;
  message: string | null;
  started_at: Date;
  updated_at: Date;
}

export interface RefundTableRow {
  id: number;
  order_id: number;
  order_line_id: number | null;
  amount_cents: number;
  reason: string;
  provider_refund_id: string | null;
  dedupe_key: string;
  created_at: Date;
}

export interface FeaturedPlacementTableRow {
  order_line_id: number;
  site_id: number;
  listing_id: number;
  week_start: string;
}

export interface CategoryPlacementTableRow {
  order_line_id: number;
  site_id: number;
  listing_id: number;
  category: string;
}

export interface BillboardDayTableRow {
  site_id: number;
  day: string;
  order_line_id: number;
  listing_id: number;
}

export interface CapacityHoldTableRow {
  id: number;
  order_id: number;
  order_line_id: number;
  site_id: number;
  kind: string;
  listing_id: number | null;
  week_start: string | null;
  day: string | null;
  created_at: Date;
}

export interface SearchChangeTableRow {
  /** xid8: pg hands it over as a string. */
  xid: string;
  listing_id: number;
  at: Date;
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

export interface RateLimitTableRow {
  key: string;
  points: number;
  expire: number | null;
}

export interface WebhookEndpointTableRow {
  id: number;
  user_id: number;
  url: string;
  description: string | null;
  events: WebhookEventType[];
  enabled: boolean;
  secret_box: Buffer;
  failing_since: Date | null;
  disabled_at: Date | null;
  disabled_reason: 'by_owner' | 'failing' | null;
  created_at: Date;
  updated_at: Date;
}

export interface WebhookEventTableRow {
  id: number;
  user_id: number;
  type: WebhookEventType;
  listing_id: number | null;
  payload: { type: WebhookEventType; created_at: string; data: Record<string, unknown> };
  dedupe_key: string;
  created_at: Date;
}

export interface WebhookDeliveryTableRow {
  id: number;
  event_id: number;
  endpoint_id: number;
  status: 'pending' | 'succeeded' | 'failed';
  round: number;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  first_attempt_at: Date | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  succeeded_at: Date | null;
  workflow_started_at: Date | null;
  created_at: Date;
}

export interface WebhookAttemptTableRow {
  id: number;
  delivery_id: number;
  round: number;
  ok: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  attempted_at: Date;
}

declare module 'knex/types/tables.js' {
  interface Tables {
    sites: Table<SiteTableRow, 'id' | 'host' | 'is_default' | 'settings' | Timestamps>;
    users: Table<UserTableRow, 'id' | 'password_hash' | 'email_verified_at' | Timestamps>;
    api_keys: Table<ApiKeyTableRow, 'id' | 'last_used_at' | 'revoked_at' | Timestamps>;
    idempotency_keys: Table<IdempotencyKeyTableRow, 'state' | 'response_status' | 'response_body' | 'created_at'>;
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
      | Timestamps,
      'search' | 'search_name' | 'search_lead'
    >;
    drafts: Table<
      DraftTableRow,
      'id' | 'status' | 'failure_code' | 'failure_reason' | 'pages' | 'fields' | 'evidence' | 'listing_id' | Timestamps
    >;
    votes: Table<VoteTableRow, 'created_at' | 'discount_reason'>;
    products: Table<ProductTableRow, 'id' | 'needs_listing' | 'options' | 'active' | Timestamps>;
    interview_questions: Table<InterviewQuestionTableRow, 'id' | 'active' | Timestamps>;
    mail_outbox: Table<
      MailOutboxTableRow,
      | 'id'
      | 'dedupe_key'
      | 'created_at'
      | 'sent_at'
      | 'attempts'
      | 'last_error'
      | 'next_attempt_at'
      | 'failed_at'
      | 'recipient_id'
      | 'mail_kind'
      | 'listing_id'
      | 'list_unsubscribe'
    >;
    mail_stops: Table<MailStopTableRow, 'id' | 'listing_id' | 'created_at'>;
    listing_versions: Table<ListingVersionTableRow, 'id' | 'editor_id' | 'source_listing_id' | 'request_id' | 'created_at'>;
    milestones: Table<MilestoneTableRow, 'id' | 'description' | 'url' | 'created_at'>;
    listing_updates: Table<ListingUpdateTableRow, 'id' | 'author_id' | 'published_at'>;
    listing_followers: Table<ListingFollowerTableRow, 'created_at' | 'last_mailed_at' | 'digest_due_at'>;
    notifications: Table<
      NotificationTableRow,
      'id' | 'listing_update_id' | 'created_at' | 'mail_pending' | 'listing_id' | 'title' | 'body' | 'dedupe_key' | 'claim_id'
    >;
    founder_profiles: Table<FounderProfileTableRow, 'display_name' | 'bio' | 'links' | Timestamps>;
    founder_photos: Table<FounderPhotoTableRow, 'updated_at'>;
    media_files: Table<MediaFileTableRow, 'created_at'>;
    interview_answers: Table<InterviewAnswerTableRow, Timestamps>;
    founder_stories: Table<
      FounderStoryTableRow,
      'title' | 'how_started' | 'problem' | 'what_built' | 'hard_parts' | 'milestones' | 'whats_next' | 'published_at' | Timestamps
    >;
    web_sessions: Table<WebSessionTableRow, 'created_at' | 'last_seen_at'>;
    account_tokens: Table<AccountTokenTableRow, 'id' | 'created_at' | 'used_at'>;
    app_secrets: Table<AppSecretTableRow, 'created_at'>;
    oauth_payloads: Table<OauthPayloadTableRow, 'grant_id' | 'user_code' | 'uid' | 'expires_at' | 'consumed_at'>;
    oauth_revoked_grants: Table<OauthRevokedGrantTableRow, 'revoked_at'>;
    launch_weeks: Table<LaunchWeekTableRow, 'created_at'>;
    launch_slots: Table<LaunchSlotTableRow, 'id' | 'taken_at'>;
    listing_badges: Table<ListingBadgeTableRow, 'badge_url' | 'status' | 'checked_at' | 'missing_since' | 'detail' | 'grace_notified_at'>;
    badge_checks: Table<BadgeCheckTableRow, 'id' | 'final_url' | 'http_status' | 'rel' | 'checked_at'>;
    voided_votes: Table<VoidedVoteTableRow, 'id' | 'user_id' | 'voided_at'>;
    weekly_results: Table<WeeklyResultTableRow, 'closed_at' | 'votes_discounted'>;
    claims: Table<ClaimTableRow, 'id' | 'email' | 'status' | 'created_at' | 'closed_at' | 'canceled_by_claim_id'>;
    claim_checks: Table<ClaimCheckTableRow, 'id' | 'checked_at'>;
    claim_email_links: Table<ClaimEmailLinkTableRow, 'id' | 'created_at' | 'used_at'>;
    promo_codes: Table<
      PromoCodeTableRow,
      | 'id'
      | 'percent_bp'
      | 'amount_cents'
      | 'starts_at'
      | 'expires_at'
      | 'max_redemptions'
      | 'per_account'
      | 'first_order_only'
      | 'min_net_cents'
      | 'products'
      | 'disabled_at'
      | 'created_at'
    >;
    orders: Table<
      OrderRow,
      | 'id'
      | 'status'
      | 'currency'
      | 'vat_check'
      | 'promo_code_id'
      | 'payment_method'
      | 'payment_id'
      | 'paid_cents'
      | 'paid_currency'
      | 'paid_at'
      | 'invoice_number'
      | 'invoice_label'
      | 'invoice_seller'
      | 'attention_reason'
      | 'fulfilled_at'
      | Timestamps
    >;
    order_lines: Table<
      OrderLineRow,
      'id' | 'listing_id' | 'listing_name' | 'options' | 'unit' | 'quantity' | 'fulfilled_at' | 'refunded_at' | 'ended'
    >;
    promo_redemptions: Table<PromoRedemptionTableRow, 'id' | 'state' | 'created_at'>;
    invoice_sequences: Table<InvoiceSequenceTableRow, 'last_number'>;
    payment_events: Table<PaymentEventTableRow, 'id' | 'order_number' | 'received_at'>;
    test_payments: Table<TestPaymentTableRow, 'created_at' | 'refunds_refused'>;
    payment_attempts: Table<PaymentAttemptTableRow, 'id' | 'provider_payment_id' | 'message'>;
    refunds: Table<RefundTableRow, 'id' | 'order_line_id' | 'provider_refund_id' | 'created_at'>;
    featured_placements: Table<FeaturedPlacementTableRow>;
    category_placements: Table<CategoryPlacementTableRow>;
    billboard_days: Table<BillboardDayTableRow>;
    capacity_holds: Table<CapacityHoldTableRow, 'id' | 'listing_id' | 'week_start' | 'day' | 'created_at'>;
    search_terms: Table<{ term: string }>;
    search_lexemes: Table<{ lexeme: string }>;
    search_changes: Table<SearchChangeTableRow, 'xid' | 'at'>;
    rate_limits: Table<RateLimitTableRow, 'points' | 'expire'>;
    vote_signals: Table<VoteSignalTableRow>;
    vote_signal_aggregates: Table<VoteSignalAggregateTableRow, 'votes' | 'account_ages' | 'ua_families' | 'referrer_hosts' | 'updated_at'>;
    vote_flags: Table<VoteFlagTableRow, 'id' | 'user_id' | 'state' | 'flagged_at' | 'decided_at'>;
    vote_button_views: Table<VoteButtonViewTableRow, 'views'>;
    webhook_endpoints: Table<
      WebhookEndpointTableRow,
      'id' | 'description' | 'enabled' | 'failing_since' | 'disabled_at' | 'disabled_reason' | Timestamps
    >;
    webhook_events: Table<WebhookEventTableRow, 'id' | 'listing_id' | 'created_at'>;
    webhook_deliveries: Table<
      WebhookDeliveryTableRow,
      | 'id'
      | 'status'
      | 'round'
      | 'attempts'
      | 'last_status_code'
      | 'last_error'
      | 'first_attempt_at'
      | 'last_attempt_at'
      | 'next_attempt_at'
      | 'succeeded_at'
      | 'workflow_started_at'
      | 'created_at'
    >;
    webhook_attempts: Table<WebhookAttemptTableRow, 'id' | 'status_code' | 'error' | 'attempted_at'>;
    listing_hourly_counts: Table<ListingHourlyCountTableRow, 'referrer_host' | 'views' | 'clicks'>;
    page_count_seen: Table<PageCountSeenTableRow>;
  }
}
