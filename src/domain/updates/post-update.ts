import type { Db } from '../../db/knex.ts';
import type { WorkflowStartQueue } from '../ports.ts';
import { emitUpdatePublished } from '../webhooks/emit.ts';
import { recordWorkflowStart } from '../workflow-outbox/starts.ts';
import { listingUpdateWorkflowId } from '../../workflows/contracts/workflow-ids.ts';
import { insertListingUpdate, type ListingUpdateRow } from './updates.ts';

export interface PostUpdateDeps {
  db: Db;
  workflowStarts: WorkflowStartQueue;
  baseUrl: string;
  /** Followers per activity call of the fan-out. */
  batchSize: number;
}

/**
 * post_listing_update: publishes the update (insertListingUpdate's quota) and, in the same
 * transaction, its `update.published` event and the start of the followers' fan-out, which is
 * made once the update is committed: an update is never published untold.
 */
export async function postListingUpdate(
  deps: PostUpdateDeps,
  ownerId: number,
  listingId: number,
  update: { title: string; body: string },
  perHour: number,
  now: Date,
): Promise<ListingUpdateRow> {
  const { row, startId } = await deps.db.transaction(async (trx) => {
    const row = await insertListingUpdate(trx, ownerId, listingId, update, perHour, now);
    await emitUpdatePublished(trx, deps.baseUrl, row.id);
    const start = {
      kind: 'listing-update' as const,
      workflowId: listingUpdateWorkflowId(row.id),
      input: { updateId: row.id, batchSize: deps.batchSize, listingId: row.listing_id },
    };
    return { row, startId: await recordWorkflowStart(trx, start, deps.workflowStarts.inlineLeaseMs()) };
  });
  await deps.workflowStarts.startNow([startId]);
  return row;
}
