import { Client, Connection, WorkflowNotFoundError, type WorkflowStartOptions } from '@temporalio/client';
import { defineSearchAttributeKey } from '@temporalio/common';
import { AppError } from '../errors.ts';
import { claimWorkflowId } from '../domain/claims/claims.ts';
import type { ClaimWorkflowInput, VerifyNowResult } from '../workflows/claim.ts';
import { draftWorkflowId } from '../domain/drafts/drafts.ts';
import { listingUpdateWorkflowId } from '../domain/updates/updates.ts';
import { TASK_QUEUES } from './task-queues.ts';

const START_DEADLINE_MS = 5_000;
/** A requested check fetches a page or asks DNS (10 s at most), plus the round trips. */
const CHECK_DEADLINE_MS = 30_000;
const CLAIM_ID = defineSearchAttributeKey('ClaimId', 'INT');
const LISTING_ID = defineSearchAttributeKey('ListingId', 'INT');

/** The workflow starts operations need; one Temporal connection per process. */
export interface WorkflowStarter {
  startDraft(draftId: number): Promise<void>;
  /** Starts telling the followers of a listing update, `batchSize` followers per activity call. */
  startListingUpdate(updateId: number, batchSize: number): Promise<void>;
  /** Starts (or finds) a claim's workflow `claim:{id}`, searchable by ClaimId and ListingId. */
  startClaim(input: ClaimWorkflowInput & { listingId: number }): Promise<void>;
  /** Update `verifyNow` on a claim's running workflow; WorkflowNotFoundError when it is closed. */
  verifyClaimNow(claimId: number): Promise<VerifyNowResult>;
  /** Signal `emailLinkOpened`: the claim was verified by its emailed link. */
  signalClaimLinkOpened(claimId: number): Promise<void>;
  /** Frontend reachable (used by /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface TemporalClientOptions {
  address: string;
  namespace: string;
}

/** Connects lazily so that the API starts even while Temporal is still coming up. */
export function createWorkflowStarter(options: TemporalClientOptions): WorkflowStarter & { client: Client } {
  const connection = Connection.lazy({ address: options.address, connectTimeout: '3 seconds' });
  const client = new Client({ connection, namespace: options.namespace });
  // Bounded so that an API request answers 503 quickly while Temporal is down.
  const startBounded = (workflowType: string, start: WorkflowStartOptions) =>
    unavailableOnError(() => connection.withDeadline(Date.now() + START_DEADLINE_MS, () => client.workflow.start(workflowType, start)));
  return {
    client,
    async startDraft(draftId) {
      await startBounded('draftWorkflow', {
        taskQueue: TASK_QUEUES.drafts,
        workflowId: draftWorkflowId(draftId),
        args: [draftId],
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
    },
    async startListingUpdate(updateId, batchSize) {
      await startBounded('listingUpdateWorkflow', {
        taskQueue: TASK_QUEUES.listings,
        workflowId: listingUpdateWorkflowId(updateId),
        args: [{ updateId, batchSize }],
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
    },
    async startClaim({ listingId, ...input }) {
      await startBounded('claimWorkflow', {
        taskQueue: TASK_QUEUES.claims,
        workflowId: claimWorkflowId(input.claimId),
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        // A finished workflow of a claim still pending (support restarts it) may run again.
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        typedSearchAttributes: [
          { key: CLAIM_ID, value: input.claimId },
          { key: LISTING_ID, value: listingId },
        ],
      });
    },
    async verifyClaimNow(claimId) {
      return unavailableOnError(() =>
        connection.withDeadline(Date.now() + CHECK_DEADLINE_MS, () =>
          client.workflow.getHandle(claimWorkflowId(claimId)).executeUpdate<VerifyNowResult, []>('verifyNow'),
        ),
      );
    },
    async signalClaimLinkOpened(claimId) {
      await unavailableOnError(() =>
        connection.withDeadline(Date.now() + START_DEADLINE_MS, () => client.workflow.getHandle(claimWorkflowId(claimId)).signal('emailLinkOpened')),
      );
    },
    async ping() {
      await connection.workflowService.getSystemInfo({});
    },
    close: () => connection.close(),
  };
}

async function unavailableOnError<T>(start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw err;
    throw new AppError(503, 'workflow_unavailable', 'Service unavailable', 'The workflow service is not reachable; please retry shortly.', {
      headers: { 'Retry-After': '5' },
    });
  }
}
