import { accountOperations } from './account.ts';
import { accountExportOperations } from './account-exports.ts';
import { claimOperations } from './claims.ts';
import { commentOperations } from './comments.ts';
import { draftOperations } from './drafts.ts';
import { founderOperations } from './founders.ts';
import { launchOperations } from './launches.ts';
import { listingEditOperations } from './listing-edits.ts';
import { listingMediaOperations } from './listing-media.ts';
import { listingOperations } from './listings.ts';
import { mailPreferenceOperations } from './mail-preferences.ts';
import { newsletterOperations } from './newsletter.ts';
import { notificationOperations } from './notifications.ts';
import type { Operation } from './operation.ts';
import { orderOperations } from './orders.ts';
import { publicOperations } from './public.ts';
import { signInIdentityOperations } from './sign-in-identities.ts';
import { staffAuditOperations } from './staff-audit.ts';
import { staffProductOperations } from './staff-catalogue.ts';
import { staffCatalogueSettingsOperations } from './staff-catalogue-settings.ts';
import { staffClaimOperations } from './staff-claims.ts';
import { staffFlowOperations } from './staff-flows.ts';
import { staffFactorOperations } from './staff-factors.ts';
import { staffOrderOperations } from './staff-orders.ts';
import { staffRoleOperations } from './staff-roles.ts';
import { staffWebhookOperations } from './staff-webhooks.ts';
import { staffPromoCodeOperations } from './staff-promo-codes.ts';
import { staffModerationOperations } from './staff-moderation.ts';
import { staffVoteFlagOperations } from './staff-vote-flags.ts';
import { staffCommentOperations } from './staff-comments.ts';
import { statsOperations } from './stats.ts';
import { updateOperations } from './updates.ts';
import { voteAuditOperations } from './vote-audit.ts';
import { webhookOperations } from './webhooks.ts';

/** THE CONTRACT: every operation of the service. REST, MCP and OpenAPI are generated from it. */
export const operations: readonly Operation[] = [
  ...publicOperations,
  ...draftOperations,
  ...listingOperations,
  ...listingEditOperations,
  ...listingMediaOperations,
  ...updateOperations,
  ...commentOperations,
  ...founderOperations,
  ...launchOperations,
  ...claimOperations,
  ...orderOperations,
  ...voteAuditOperations,
  ...webhookOperations,
  ...statsOperations,
  ...mailPreferenceOperations,
  ...notificationOperations,
  ...signInIdentityOperations,
  ...accountOperations,
  ...accountExportOperations,
  ...newsletterOperations,
  ...staffOrderOperations,
  ...staffAuditOperations,
  ...staffClaimOperations,
  ...staffWebhookOperations,
  ...staffRoleOperations,
  ...staffFlowOperations,
  ...staffProductOperations,
  ...staffPromoCodeOperations,
  ...staffCatalogueSettingsOperations,
  ...staffModerationOperations,
  ...staffVoteFlagOperations,
  ...staffCommentOperations,
  ...staffFactorOperations,
] as unknown as readonly Operation[];
