import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { DraftActivities } from '../activities/drafts.ts';

const CRAWL_TIMEOUT = '3 minutes';
const STEP_TIMEOUT = '30 seconds';

// Site-caused failures are non-retryable ApplicationFailures; retries cover our own hiccups.
const { crawlDraftSite } = proxyActivities<DraftActivities>({
  startToCloseTimeout: CRAWL_TIMEOUT,
  retry: { maximumAttempts: 3, initialInterval: '2 seconds' },
});
const { composeDraft, failDraft } = proxyActivities<DraftActivities>({
  startToCloseTimeout: STEP_TIMEOUT,
  retry: { maximumAttempts: 5 },
});

/** website URL → crawled pages → drafted fields; status lives in Postgres (`draft:{id}`). */
export async function draftWorkflow(draftId: number): Promise<'ready' | 'failed'> {
  try {
    await crawlDraftSite(draftId);
    await composeDraft(draftId);
    return 'ready';
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    const known = cause instanceof ApplicationFailure && cause.type;
    await failDraft(
      draftId,
      known ? cause.type! : 'internal_error',
      known ? cause.message : 'The draft could not be built because of an error on our side.',
    );
    return 'failed';
  }
}
