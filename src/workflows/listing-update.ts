import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { ListingUpdateActivities } from '../activities/listing-updates.ts';
import type { MailActivities } from '../activities/mail.ts';

const BATCH_TIMEOUT = '1 minute';
const DELIVERY_TIMEOUT = '10 minutes';
const DELIVERY_HEARTBEAT = '30 seconds';
/** Keeps each run's history small; a fan-out to a million followers continues as new. */
const DEFAULT_BATCHES_PER_RUN = 200;

const { tellFollowers } = proxyActivities<ListingUpdateActivities>({
  startToCloseTimeout: BATCH_TIMEOUT,
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
const { deliverMail } = proxyActivities<MailActivities>({
  startToCloseTimeout: DELIVERY_TIMEOUT,
  heartbeatTimeout: DELIVERY_HEARTBEAT,
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export interface ListingUpdateFanOut {
  updateId: number;
  batchSize: number;
  /** Batches before continuing as new. @default 200 */
  batchesPerRun?: number;
  /** Cursor carried over continue-as-new; 0 at the start. */
  afterUserId?: number;
  /** Followers told by earlier runs. */
  told?: number;
}

/**
 * Tells an update's followers in batches (`listing-update:{updateId}`): each batch writes the
 * notifications and queues the mails in one transaction, then sends those mails. The cursor
 * (the last follower's user id) lives in the workflow, so a worker restart resumes after the
 * last finished batch; a repeated batch or delivery is harmless (unique rows, sent_at).
 */
export async function listingUpdateWorkflow(input: ListingUpdateFanOut): Promise<{ told: number }> {
  let after = input.afterUserId ?? 0;
  let told = input.told ?? 0;
  for (let i = 0; i < (input.batchesPerRun ?? DEFAULT_BATCHES_PER_RUN); i++) {
    const batch = await tellFollowers(input.updateId, after, input.batchSize);
    told += batch.followers;
    if (batch.mailIds.length > 0) await deliverMail(batch.mailIds);
    if (batch.lastUserId === null) return { told };
    after = batch.lastUserId;
  }
  return continueAsNew<typeof listingUpdateWorkflow>({ ...input, afterUserId: after, told });
}
