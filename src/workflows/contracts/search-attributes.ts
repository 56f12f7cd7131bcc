import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Typed keys of the custom search attributes; each is registered in SEARCH_ATTRIBUTES
// (src/embedded/temporal.ts) and must be registered on an external cluster too.

/** The draft a `draft:{id}` workflow builds. */
export const DRAFT_ID = defineSearchAttributeKey('DraftId', SearchAttributeType.INT);

/** The draft's status as the workflow last set it: crawling, drafting, ready or failed. */
export const DRAFT_STATUS = defineSearchAttributeKey('DraftStatus', SearchAttributeType.KEYWORD);

/** The listing a `listing:{id}`, `claim:{id}` or `order:{number}` workflow is about. */
export const LISTING_ID = defineSearchAttributeKey('ListingId', SearchAttributeType.INT);

/** The claim a `claim:{id}` workflow verifies. */
export const CLAIM_ID = defineSearchAttributeKey('ClaimId', SearchAttributeType.INT);

/** The site (key) a launch or weekly-close workflow belongs to. */
export const SITE_KEY = defineSearchAttributeKey('SiteKey', SearchAttributeType.KEYWORD);

/** The order an `order:{number}` workflow takes from checkout to fulfilment. */
export const ORDER_NUMBER = defineSearchAttributeKey('OrderNumber', SearchAttributeType.KEYWORD);
