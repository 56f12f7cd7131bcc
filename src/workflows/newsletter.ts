import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { NewsletterActivities } from '../activities/newsletter.ts';
import { deliverMail } from './mail-delivery.ts';

/** Keeps each run's history small; a list of a million subscribers continues as new. */
const DEFAULT_BATCHES_PER_RUN = 200;

const { sendNewsletterBatch } = proxyActivities<NewsletterActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
export interface NewsletterInput {
  siteKey: string;
  /** The closed ISO week the issue is about (`2026-W48`). */
  week: string;
  batchSize: number;
  /** The wait after each batch (NEWSLETTER_PER_MINUTE), on Temporal's clock. */
  pauseMs: number;
  batchesPerRun?: number;
  /** Cursor carried over continue-as-new: the last subscriber id of the last finished batch. */
  afterSubscriberId?: number;
  /** Mails queued by earlier runs. */
  sent?: number;
}

/**
 * Sends a site's issue about a closed week to every confirmed subscriber (`newsletter:{site}:{week}`),
 * batch by batch at the relay's pace. Each batch records its sends and queues their mails in one
 * transaction, then delivers them; the cursor lives in the workflow, so a worker that dies
 * mid-send is replaced by one that resumes after the last finished batch, and a batch run again
 * queues nothing twice (one send per subscriber and issue).
 */
export async function newsletterWorkflow(input: NewsletterInput): Promise<{ sent: number }> {
  let after = input.afterSubscriberId ?? 0;
  let sent = input.sent ?? 0;
  for (let i = 0; i < (input.batchesPerRun ?? DEFAULT_BATCHES_PER_RUN); i++) {
    const batch = await sendNewsletterBatch(input.siteKey, input.week, after, input.batchSize);
    sent += batch.queued;
    if (batch.mailIds.length > 0) await deliverMail(batch.mailIds);
    if (batch.lastSubscriberId === null) return { sent };
    after = batch.lastSubscriberId;
    if (input.pauseMs > 0) await sleep(input.pauseMs);
  }
  return continueAsNew<typeof newsletterWorkflow>({ ...input, afterSubscriberId: after, sent });
}
