import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { ListingUpdateActivities } from '../activities/listing-updates.ts';
import { deliverMail } from './mail-delivery.ts';

const BATCH_TIMEOUT = '1 minute';
/** Keeps each run's history small; a fan-out to a million followers continues as new. */
const DEFAULT_BATCHES_PER_RUN = 200;
/** Least wait before looking again for a digest the database does not see as due yet. */
const DIGEST_RECHECK_MS = 1000;

const { tellFollowers, sendDigests } = proxyActivities<ListingUpdateActivities>({
  startToCloseTimeout: BATCH_TIMEOUT,
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
  /** Carried over continue-as-new: when the digests of followers whose mail was held back are due (epoch ms). */
  digestDueAt?: number | null;
  /** The update's listing, once a batch named it. */
  listingId?: number | null;
}

/**
 * Tells an update's followers in batches (`listing-update:{updateId}`): each batch writes the
 * notifications and queues the mails in one transaction, then sends those mails. The cursor
 * (the last follower's user id) lives in the workflow, so a worker restart resumes after the
 * last finished batch; a repeated batch or delivery is harmless (unique rows, sent_at).
 * Followers mailed about the listing within the hour get this update later, in a digest: the
 * workflow sleeps until their window ends and sends the listing's due digests. Histories from
 * before digests replay unchanged: their batches carry no `digestDueAt`, so no timer is added.
 */
export async function listingUpdateWorkflow(input: ListingUpdateFanOut): Promise<{ told: number }> {
  let after = input.afterUserId ?? 0;
  let told = input.told ?? 0;
  let digestDueAt = input.digestDueAt ?? null;
  let listingId = input.listingId ?? null;
  for (let i = 0; i < (input.batchesPerRun ?? DEFAULT_BATCHES_PER_RUN); i++) {
    const batch = await tellFollowers(input.updateId, after, input.batchSize);
    told += batch.followers;
    listingId = batch.listingId ?? listingId;
    if (batch.digestDueAt != null) digestDueAt = Math.max(digestDueAt ?? 0, batch.digestDueAt);
    if (batch.mailIds.length > 0) await deliverMail(batch.mailIds);
    if (batch.lastUserId === null) {
      if (digestDueAt !== null && listingId !== null) await sendDigestsWhenDue(listingId, digestDueAt, input.batchSize);
      return { told };
    }
    after = batch.lastUserId;
  }
  return continueAsNew<typeof listingUpdateWorkflow>({ ...input, afterUserId: after, told, digestDueAt, listingId });
}

/**
 * Waits until the held-back mails are due, then sends the listing's due digests batch by batch.
 * Digests due by `dueAt` that the database does not see as due yet (clock skew) are waited for
 * again; later ones belong to the fan-out of a later update.
 */
async function sendDigestsWhenDue(listingId: number, dueAt: number, batchSize: number): Promise<void> {
  let wakeAt = dueAt;
  for (;;) {
    const wait = wakeAt - Date.now();
    if (wait > 0) await sleep(wait);
    const digests = await sendDigests(listingId, batchSize);
    if (digests.mailIds.length > 0) await deliverMail(digests.mailIds);
    if (digests.more) continue;
    if (digests.nextDueAt === null || digests.nextDueAt > dueAt) return;
    wakeAt = Math.max(digests.nextDueAt, Date.now() + DIGEST_RECHECK_MS);
  }
}
