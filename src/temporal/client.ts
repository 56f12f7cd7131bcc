import { Client, Connection, WorkflowNotFoundError, type WorkflowStartOptions } from '@temporalio/client';
import { serviceUnavailable } from '../errors.ts';
import { draftWorkflowId } from '../domain/drafts/drafts.ts';
import { listingUpdateWorkflowId } from '../domain/updates/updates.ts';
import type * as workflows from '../workflows/index.ts';
import { TASK_QUEUES } from './task-queues.ts';

type Workflows = typeof workflows;
type WorkflowName = keyof Workflows;

const START_DEADLINE_MS = 5_000;

/** The workflow starts operations need; one Temporal connection per process. */
export interface WorkflowStarter {
  startDraft(draftId: number): Promise<void>;
  /** Starts telling the followers of a listing update, `batchSize` followers per activity call. */
  startListingUpdate(updateId: number, batchSize: number): Promise<void>;
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
  // Bounded so that an API request answers 503 quickly while Temporal is down. The type name is
  // checked against the worker's workflow bundle, and the arguments against that workflow.
  const startBounded = <W extends WorkflowName>(workflowType: W, start: WorkflowStartOptions<Workflows[W]>) =>
    unavailableOnError(() =>
      connection.withDeadline(Date.now() + START_DEADLINE_MS, () => client.workflow.start<Workflows[W]>(workflowType, start)),
    );
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
    throw serviceUnavailable('The workflow service is not reachable; please retry shortly.', 5);
  }
}
