import { Client, Connection, WorkflowNotFoundError, type WorkflowStartOptions } from '@temporalio/client';
import { AppError } from '../errors.ts';
import { draftWorkflowId } from '../domain/drafts/drafts.ts';
import { listingUpdateWorkflowId } from '../domain/updates/updates.ts';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { PAYMENT_CONFIRMED_SIGNAL, orderWorkflowId, type OrderWorkflowInput, type PaymentConfirmed } from '../domain/orders/order-flow.ts';
import { TASK_QUEUES } from './task-queues.ts';

const START_DEADLINE_MS = 5_000;

/** The workflow starts operations need; one Temporal connection per process. */
export interface WorkflowStarter {
  startDraft(draftId: number): Promise<void>;
  /** Starts telling the followers of a listing update, `batchSize` followers per activity call. */
  startListingUpdate(updateId: number, batchSize: number): Promise<void>;
  /** Starts `order:{number}`: waits for the payment until the link expires, then fulfils. */
  startOrder(input: OrderWorkflowInput, listingIds: number[]): Promise<void>;
  /** Delivers a stored payment event to `order:{number}`, starting the workflow when it is closed or missing. */
  signalPayment(input: OrderWorkflowInput, listingIds: number[], signal: PaymentConfirmed): Promise<void>;
  /** The Temporal client (support commands use it for updates and queries). */
  readonly client: Client;
  /** Frontend reachable (used by /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface TemporalClientOptions {
  address: string;
  namespace: string;
}

/** Connects lazily so that the API starts even while Temporal is still coming up. */
export function createWorkflowStarter(options: TemporalClientOptions): WorkflowStarter {
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
    async startOrder(input, listingIds) {
      await startBounded('orderWorkflow', orderStart(input, listingIds));
    },
    async signalPayment(input, listingIds, signal) {
      await unavailableOnError(() =>
        connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
          client.workflow.signalWithStart('orderWorkflow', {
            ...orderStart(input, listingIds),
            signal: PAYMENT_CONFIRMED_SIGNAL,
            signalArgs: [signal],
          }),
        ),
      );
    },
    async ping() {
      await connection.workflowService.getSystemInfo({});
    },
    close: () => connection.close(),
  };
}

function orderStart(input: OrderWorkflowInput, listingIds: number[]): WorkflowStartOptions {
  return {
    taskQueue: TASK_QUEUES.orders,
    workflowId: orderWorkflowId(input.number),
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [
      { key: defineSearchAttributeKey('OrderNumber', SearchAttributeType.KEYWORD), value: input.number },
      ...listingIds.slice(0, 1).map((id) => ({ key: defineSearchAttributeKey('ListingId', SearchAttributeType.INT), value: id })),
    ] as WorkflowStartOptions['typedSearchAttributes'],
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
