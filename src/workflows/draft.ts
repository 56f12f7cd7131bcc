import { ActivityFailure, ApplicationFailure, patched, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { DraftActivities } from '../activities/drafts.ts';
import { DRAFT_STATUS } from './contracts/search-attributes.ts';

const CRAWL_TIMEOUT = '3 minutes';
const STEP_TIMEOUT = '30 seconds';
/** Runs recorded before DraftStatus existed replay without it (and still complete as 'failed'). */
const DRAFT_STATUS_PATCH = 'draft-status-search-attribute';

// Site-caused failures are non-retryable ApplicationFailures; retries cover our own hiccups. Six
// attempts (2 + 4 + 8 + 16 + 32 s apart): a killed worker costs one and a database restart of a few
// seconds several; with three, `npm run loadtest` saw drafts fail over a 6 s restart.
const { crawlDraftSite } = proxyActivities<DraftActivities>({
  startToCloseTimeout: CRAWL_TIMEOUT,
  retry: { maximumAttempts: 6, initialInterval: '2 seconds' },
});
const { composeDraft, failDraft } = proxyActivities<DraftActivities>({
  startToCloseTimeout: STEP_TIMEOUT,
  retry: { maximumAttempts: 5 },
});

/**
 * website URL → crawled pages → drafted fields; status lives in Postgres (`draft:{id}`) and, for
 * operators, in the DraftStatus search attribute (the start sets `crawling`). A failed draft
 * fails the workflow too, so it shows as failed in the Temporal UI's list.
 */
export async function draftWorkflow(draftId: number): Promise<'ready' | 'failed'> {
  const tracked = patched(DRAFT_STATUS_PATCH);
  const status = (value: 'drafting' | 'ready' | 'failed') => {
    if (tracked) upsertSearchAttributes([{ key: DRAFT_STATUS, value }]);
  };
  try {
    await crawlDraftSite(draftId);
    status('drafting');
    await composeDraft(draftId);
    status('ready');
    return 'ready';
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    const known = cause instanceof ApplicationFailure && cause.type;
    const code = known ? cause.type! : 'internal_error';
    const reason = known ? cause.message : 'The draft could not be built because of an error on our side.';
    await failDraft(draftId, code, reason);
    if (!tracked) return 'failed';
    status('failed');
    // The owner sees the reason on the draft; the operator sees a failed run with the same reason.
    throw ApplicationFailure.nonRetryable(reason, code);
  }
}
