import type { Table, Timestamps } from '../../db/table-types.ts';
import type { Scope } from '../../auth/scopes.ts';
import type { SiteSettings } from './sites.ts';

/**
 * The tables of sites, accounts, sign-in, secrets, limits and mail, as they stand after the last migration, declared for knex's
 * `knex/types/tables` (`db('...')` is then a query over the row type). The rows reuse the
 * domain's types, so they live with their areas; src/db/table-types.ts holds the helpers.
 */
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
  /** Set when the person deleted the account (docs/accounts.md). */
  deleted_at: Date | null;
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
  body_html: string | null;
  envelope_from: string | null;
  newsletter_subscriber_id: number | null;
}

export interface MailStopTableRow {
  id: number;
  user_id: number;
  kind: string;
  listing_id: number | null;
  created_at: Date;
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
  comment_id: number | null;
  read_at: Date | null;
}

export interface WebSessionTableRow {
  id_hash: string;
  user_id: number;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  /** Browser and system, from the User-Agent at sign-in. */
  device_label: string | null;
  /** What the account page and the API name a session by (the id hash stays private). */
  public_id: string;
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

export interface RateLimitTableRow {
  key: string;
  points: number;
  expire: number | null;
}

declare module 'knex/types/tables.js' {
  interface Tables {
    sites: Table<SiteTableRow, 'id' | 'host' | 'is_default' | 'settings' | Timestamps>;
    users: Table<UserTableRow, 'id' | 'password_hash' | 'email_verified_at' | 'deleted_at' | Timestamps>;
    api_keys: Table<ApiKeyTableRow, 'id' | 'last_used_at' | 'revoked_at' | Timestamps>;
    idempotency_keys: Table<IdempotencyKeyTableRow, 'state' | 'response_status' | 'response_body' | 'created_at'>;
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
      | 'body_html'
      | 'envelope_from'
      | 'newsletter_subscriber_id'
    >;
    mail_stops: Table<MailStopTableRow, 'id' | 'listing_id' | 'created_at'>;
    notifications: Table<
      NotificationTableRow,
      | 'id'
      | 'listing_update_id'
      | 'created_at'
      | 'mail_pending'
      | 'listing_id'
      | 'title'
      | 'body'
      | 'dedupe_key'
      | 'claim_id'
      | 'comment_id'
      | 'read_at'
    >;
    web_sessions: Table<WebSessionTableRow, 'created_at' | 'last_seen_at' | 'device_label' | 'public_id'>;
    account_tokens: Table<AccountTokenTableRow, 'id' | 'created_at' | 'used_at'>;
    app_secrets: Table<AppSecretTableRow, 'created_at'>;
    oauth_payloads: Table<OauthPayloadTableRow, 'grant_id' | 'user_code' | 'uid' | 'expires_at' | 'consumed_at'>;
    oauth_revoked_grants: Table<OauthRevokedGrantTableRow, 'revoked_at'>;
    rate_limits: Table<RateLimitTableRow, 'points' | 'expire'>;
  }
}
