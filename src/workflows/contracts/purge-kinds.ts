/** Rows the daily `maintenance` workflow removes, one kind per table. */
export const PURGE_KINDS = [
  'idempotency_keys',
  'oauth_rows',
  'web_sessions',
  'account_tokens',
  'claim_email_links',
  'rate_limits',
  'vote_signals',
  'vote_network_keys',
  'page_count_seen',
  'page_count_keys',
] as const;
export type PurgeKind = (typeof PURGE_KINDS)[number];
