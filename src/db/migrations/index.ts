import type { Knex } from 'knex';
import * as initial from './001-initial.ts';
import * as mailOutbox from './002-mail-outbox.ts';
import * as listingEdits from './003-listing-edits.ts';
import * as updatesFollowers from './004-updates-followers.ts';
import * as founders from './005-founders.ts';
import * as webAccounts from './006-web-accounts.ts';
import * as oauth from './007-oauth.ts';
import * as oauthRegistrations from './008-oauth-registrations.ts';
import * as quotasDigests from './009-quotas-digests.ts';
import * as launches from './012-launches.ts';
import * as votes from './013-votes.ts';
import * as claims from './014-claims.ts';
import * as orders from './015-orders.ts';
import * as search from './016-search.ts';
import * as searchSpeed from './017-search-speed.ts';
import * as searchChanges from './018-search-changes.ts';
import * as capacityHolds from './019-capacity-holds.ts';
import * as unitPrices from './020-unit-prices.ts';
import * as companyIdentity from './021-company-identity.ts';
import * as testPaymentRefunds from './022-test-payment-refunds.ts';
import * as rateLimits from './023-rate-limits.ts';
import * as searchTriggerColumns from './024-search-trigger-columns.ts';
import * as limitsOnRateLimiter from './025-limits-on-rate-limiter.ts';
import * as media from './026-media.ts';
import * as voteTrust from './027-vote-trust.ts';
import * as webhooks from './028-webhooks.ts';
import * as listingStats from './029-listing-stats.ts';
import * as refundEnded from './031-refund-ended.ts';
import * as paymentAttempts from './032-payment-attempts.ts';
import * as invoiceSnapshots from './033-invoice-snapshots.ts';
import * as mailPreferences from './034-mail-preferences.ts';
import * as workflowStarts from './036-workflow-starts.ts';
import * as launchWeekEnd from './037-launch-week-end.ts';
import * as pageCountSeen from './038-page-count-seen.ts';
import * as staff from './039-staff.ts';
import * as staffSecondFactor from './040-staff-second-factor.ts';
import * as staffPasskeys from './041-staff-passkeys.ts';
import * as claimDecisions from './042-claim-decisions.ts';
import * as listingModeration from './043-listing-moderation.ts';
import * as comments from './045-comments.ts';
import * as newsletter from './047-newsletter.ts';
import * as signInIdentities from './048-sign-in-identities.ts';
import * as commentNotifications from './050-comment-notifications.ts';
import * as accountControl from './052-account-control.ts';
import * as searchFeeds from './053-search-feeds.ts';
import * as personNotices from './054-person-notices.ts';

interface Migration {
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
}

// Migrations are listed in code (not discovered on disk) so they work the same from
// source under type stripping and from any packaged build. They run in the order of this list,
// which is their file numbers' order (test/db/migration-order.test.ts). knex records each by name
// and only refuses a list that lacks a recorded name, so putting a name in its place later does
// not re-run it (docs/decisions/migration-order.md).
const migrations: Record<string, Migration> = {
  '001-initial': initial,
  '002-mail-outbox': mailOutbox,
  '003-listing-edits': listingEdits,
  '004-updates-followers': updatesFollowers,
  '005-founders': founders,
  '006-web-accounts': webAccounts,
  '007-oauth': oauth,
  '008-oauth-registrations': oauthRegistrations,
  '009-quotas-digests': quotasDigests,
  '012-launches': launches,
  '013-votes': votes,
  '014-claims': claims,
  '015-orders': orders,
  '016-search': search,
  '017-search-speed': searchSpeed,
  '018-search-changes': searchChanges,
  '019-capacity-holds': capacityHolds,
  '020-unit-prices': unitPrices,
  '021-company-identity': companyIdentity,
  '022-test-payment-refunds': testPaymentRefunds,
  '023-rate-limits': rateLimits,
  '024-search-trigger-columns': searchTriggerColumns,
  '025-limits-on-rate-limiter': limitsOnRateLimiter,
  '026-media': media,
  '027-vote-trust': voteTrust,
  '028-webhooks': webhooks,
  '029-listing-stats': listingStats,
  '031-refund-ended': refundEnded,
  '032-payment-attempts': paymentAttempts,
  '033-invoice-snapshots': invoiceSnapshots,
  '034-mail-preferences': mailPreferences,
  '036-workflow-starts': workflowStarts,
  '037-launch-week-end': launchWeekEnd,
  '038-page-count-seen': pageCountSeen,
  '039-staff': staff,
  '040-staff-second-factor': staffSecondFactor,
  '041-staff-passkeys': staffPasskeys,
  '042-claim-decisions': claimDecisions,
  '043-listing-moderation': listingModeration,
  '045-comments': comments,
  '047-newsletter': newsletter,
  '048-sign-in-identities': signInIdentities,
  '050-comment-notifications': commentNotifications,
  '052-account-control': accountControl,
  '053-search-feeds': searchFeeds,
  '054-person-notices': personNotices,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};
