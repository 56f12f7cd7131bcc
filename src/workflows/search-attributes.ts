import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Typed keys of the custom search attributes; each is registered in SEARCH_ATTRIBUTES
// (src/embedded/temporal.ts) and must be registered on an external cluster too.

/** The draft a `draft:{id}` workflow builds. */
export const DRAFT_ID = defineSearchAttributeKey('DraftId', SearchAttributeType.INT);

/** The draft's status as the workflow last set it: crawling, drafting, ready or failed. */
export const DRAFT_STATUS = defineSearchAttributeKey('DraftStatus', SearchAttributeType.KEYWORD);
