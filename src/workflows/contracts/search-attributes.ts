import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Typed keys of the custom search attributes operators find flows by. The embedded dev server, the
// test servers and the worker's start-up check (src/temporal/search-attributes.ts) register the
// names of SEARCH_ATTRIBUTES below; an external cluster needs them too.

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

/** Temporal's own: when a Schedule meant to start the workflow (the week a close or scan is for). */
export const SCHEDULED_START = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

const KEYS = [LISTING_ID, ORDER_NUMBER, CLAIM_ID, DRAFT_ID, DRAFT_STATUS, SITE_KEY];

/** Every custom search attribute by name, with its type as the Temporal CLI spells it. */
export const SEARCH_ATTRIBUTES: Readonly<Record<string, 'Int' | 'Keyword'>> = Object.fromEntries(
  KEYS.map((key) => [key.name, key.type === SearchAttributeType.INT ? 'Int' : 'Keyword']),
);
