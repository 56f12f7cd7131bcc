import { ActivityFailure, ApplicationFailure, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { ListingImportActivities } from '../activities/listing-imports.ts';
import { LISTING_ID } from './contracts/search-attributes.ts';

export interface ListingImportInput {
  siteId: number;
  url: string;
}

// A crawl takes up to a few minutes; site-caused failures (crawl failed, already listed) are
// non-retryable ApplicationFailures, retries cover our own hiccups (as for drafts).
const { importCompanyListing } = proxyActivities<ListingImportActivities>({
  startToCloseTimeout: '3 minutes',
  retry: { maximumAttempts: 6, initialInterval: '2 seconds' },
});

/**
 * `import:{site}:{domain}` (listings:import): crawls a company's website with the worker's crawl
 * settings and publishes it as a live listing without owner. A refusal fails the run with the
 * refusal's code and message, which the admin CLI prints.
 */
export async function listingImportWorkflow(input: ListingImportInput): Promise<{ id: number; slug: string }> {
  try {
    const listing = await importCompanyListing(input);
    upsertSearchAttributes([{ key: LISTING_ID, value: listing.id }]);
    return listing;
  } catch (err) {
    // The operator (and the CLI) see the refusal itself rather than "activity task failed".
    const cause = err instanceof ActivityFailure ? err.cause : err;
    if (cause instanceof ApplicationFailure && cause.type) throw ApplicationFailure.nonRetryable(cause.message, cause.type);
    throw err;
  }
}
