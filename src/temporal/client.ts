import type { Client, Connection, WorkflowHandle, WorkflowStartOptions } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError, type SearchAttributePair, type SignalDefinition } from '@temporalio/common';
import { AppError, ERROR_CATALOGUE, serviceUnavailable, type ErrorCode } from '../errors/errors.ts';
import { companyKey } from '../domain/company.ts';
import type { WorkflowStarter, WorkflowStatus } from '../domain/ports.ts';
import {
  claimClosedSignal,
  emailLinkOpenedSignal,
  paidLaunchSignal,
  paymentConfirmedSignal,
  recheckSignal,
  retryUpdate,
  verifyNowUpdate,
} from '../workflows/contracts/messages.ts';
import { CLAIM_ID, DRAFT_ID, DRAFT_STATUS, LISTING_ID, ORDER_NUMBER, SITE_KEY } from '../workflows/contracts/search-attributes.ts';
import {
  claimWorkflowId,
  draftWorkflowId,
  listingImportWorkflowId,
  listingLaunchWorkflowId,
  listingUpdateWorkflowId,
  notificationMailWorkflowId,
  newsletterWorkflowId,
  accountExportWorkflowId,
  orderWorkflowId,
  webhookDeliveryWorkflowId,
} from '../workflows/contracts/workflow-ids.ts';
import type { OrderWorkflowInput } from '../domain/orders/order-flow.ts';
import type * as workflows from '../workflows/index.ts';
import {
  claimSummary,
  draftSummary,
  importSummary,
  launchSummary,
  listingUpdateSummary,
  notificationMailSummary,
  newsletterSummary,
  orderSummary,
  webhookDeliverySummary,
} from '../workflows/summaries.ts';
import { temporalClientSdk } from './client-sdk.ts';
import { TASK_QUEUES } from '../workflows/contracts/task-queues.ts';

type Workflows = typeof workflows;
type WorkflowName = keyof Workflows;

const START_DEADLINE_MS = 5_000;
/** A requested check fetches a page or asks DNS (10 s at most), plus the round trips. */
const CHECK_DEADLINE_MS = 30_000;

export interface TemporalClientOptions {
  address: string;
  namespace: string;
}

export type { WorkflowStarter };

/** The domain's WorkflowStarter port on Temporal. Connects lazily so that the API starts even while Temporal is still coming up. */
export function createWorkflowStarter(options: TemporalClientOptions): WorkflowStarter {
  // Built at the first use, so that a process that never talks to Temporal does not load its SDK
  // (client-sdk.ts); the lazy connection connects at its first call.
  let temporal: { connection: Connection; client: Client } | undefined;
  const open = () => {
    if (temporal) return temporal;
    const { Client, Connection } = temporalClientSdk();
    const connection = Connection.lazy({ address: options.address, connectTimeout: '3 seconds' });
    return (temporal = { connection, client: new Client({ connection, namespace: options.namespace }) });
  };
  const connection = () => open().connection;
  const client = () => open().client;
  // Calls in flight, so that close() lets them finish first: closing the connection under a call
  // whose retry timer is pending makes the SDK throw from that timer ("Channel has been shut down").
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(pending: Promise<T>): Promise<T> => {
    inFlight.add(pending);
    pending.then(
      () => inFlight.delete(pending),
      () => inFlight.delete(pending),
    );
    return pending;
  };
  const guarded = <T>(call: () => Promise<T>): Promise<T> => unavailableOnError(() => track(call()));
  // Bounded so that an API request answers 503 quickly while Temporal is down. The type name is
  // checked against the worker's workflow bundle, and the arguments against that workflow.
  const startBounded = <W extends WorkflowName>(workflowType: W, start: WorkflowStartOptions<Workflows[W]>) =>
    guarded(() =>
      connection().withDeadline(Date.now() + START_DEADLINE_MS, () => client().workflow.start<Workflows[W]>(workflowType, start)),
    );
  const signalLaunch = <A extends unknown[]>(listingId: number, siteKey: string, signal: SignalDefinition<A>, signalArgs: A) =>
    guarded(() =>
      connection().withDeadline(Date.now() + START_DEADLINE_MS, () =>
        client().workflow.signalWithStart<Workflows['listingLaunchWorkflow'], unknown[]>('listingLaunchWorkflow', {
          taskQueue: TASK_QUEUES.listings,
          workflowId: listingLaunchWorkflowId(listingId),
          args: [{ listingId }],
          // The definition and its arguments agree by signalLaunch's type; the SDK's option type cannot say so for any A.
          signal: signal as SignalDefinition<unknown[]>,
          signalArgs,
          staticSummary: launchSummary(listingId, siteKey),
          // Operators find launches by listing and site in the Temporal UI.
          typedSearchAttributes: [
            { key: LISTING_ID, value: listingId },
            { key: SITE_KEY, value: siteKey },
          ] as SearchAttributePair[],
        }),
      ),
    );
  // The messages of running flows: a closed or missing run answers null (not a 503).
  const message = <T>(workflowId: string, deadlineMs: number, send: (handle: WorkflowHandle) => Promise<T>) =>
    nullWhenNotFound(() =>
      guarded(() => connection().withDeadline(Date.now() + deadlineMs, () => send(client().workflow.getHandle(workflowId)))),
    );
  return {
    async recheckLaunch(listingId, siteKey) {
      await signalLaunch(listingId, siteKey, recheckSignal, []);
    },
    async paidLaunch(listingId, siteKey, week) {
      await signalLaunch(listingId, siteKey, paidLaunchSignal, [{ week }]);
    },
    async startDraft(draftId, { url, siteKey }) {
      await startBounded('draftWorkflow', {
        taskQueue: TASK_QUEUES.drafts,
        workflowId: draftWorkflowId(draftId),
        args: [draftId],
        workflowIdConflictPolicy: 'USE_EXISTING',
        staticSummary: draftSummary(draftId, url, siteKey),
        typedSearchAttributes: [
          { key: DRAFT_ID, value: draftId },
          { key: DRAFT_STATUS, value: 'crawling' },
          { key: SITE_KEY, value: siteKey },
        ],
      });
    },
    async importListing({ siteId, siteKey, url }) {
      const handle = await startBounded('listingImportWorkflow', {
        taskQueue: TASK_QUEUES.drafts,
        workflowId: listingImportWorkflowId(siteKey, companyKey(url)),
        args: [{ siteId, url }],
        // A second import of the same company while one runs waits for that one's result.
        workflowIdConflictPolicy: 'USE_EXISTING',
        staticSummary: importSummary(url, siteKey),
        typedSearchAttributes: [{ key: SITE_KEY, value: siteKey }],
      });
      // Without a worker the wait would never end: the caller is told at once (the run stays and
      // goes ahead when a worker starts). A worker stopped a moment ago may still count as polling.
      const { pollers } = await guarded(() =>
        connection().withDeadline(Date.now() + START_DEADLINE_MS, () =>
          connection().workflowService.describeTaskQueue({ namespace: options.namespace, taskQueue: { name: TASK_QUEUES.drafts } }),
        ),
      );
      if (!pollers?.length) {
        throw serviceUnavailable(
          `No worker polls the task queue "${TASK_QUEUES.drafts}": ${handle.workflowId} is started and runs when a worker starts (npm start, or main.ts worker).`,
          5,
        );
      }
      try {
        return await handle.result();
      } catch (err) {
        // The workflow fails with the refusal's code and message (already_listed, crawl failures).
        const cause = err instanceof temporalClientSdk().WorkflowFailedError ? err.cause : undefined;
        if (cause instanceof ApplicationFailure && cause.type && Object.hasOwn(ERROR_CATALOGUE, cause.type)) {
          throw new AppError(cause.type as ErrorCode, cause.message);
        }
        throw err;
      }
    },
    async startListingUpdate(updateId, batchSize, listingId) {
      await startBounded('listingUpdateWorkflow', {
        taskQueue: TASK_QUEUES.listings,
        workflowId: listingUpdateWorkflowId(updateId),
        args: [{ updateId, batchSize }],
        workflowIdConflictPolicy: 'USE_EXISTING',
        staticSummary: listingUpdateSummary(updateId, listingId),
        typedSearchAttributes: [{ key: LISTING_ID, value: listingId }],
      });
    },
    async startNewsletter(input) {
      await startBounded('newsletterWorkflow', {
        taskQueue: TASK_QUEUES.ranking,
        workflowId: newsletterWorkflowId(input.siteKey, input.week),
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        staticSummary: newsletterSummary(input.siteKey, input.week),
        typedSearchAttributes: [{ key: SITE_KEY, value: input.siteKey }],
      });
    },
    async startNotificationMail(input) {
      await startBounded('notificationMailWorkflow', {
        taskQueue: TASK_QUEUES.listings,
        workflowId: notificationMailWorkflowId(input.userId, input.dueAt),
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        staticSummary: notificationMailSummary(input.userId),
      });
    },
    async startAccountExport(input) {
      await startBounded('accountExportWorkflow', {
        taskQueue: TASK_QUEUES.accounts,
        workflowId: accountExportWorkflowId(input.userId, input.exportId),
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        staticSummary: `Data export ${input.exportId} of account ${input.userId}`,
      });
    },
    async startClaim({ listingId, slug, ...input }) {
      await startBounded('claimWorkflow', {
        taskQueue: TASK_QUEUES.claims,
        workflowId: claimWorkflowId(input.claimId),
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        // A finished workflow of a claim still pending (support restarts it) may run again.
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        staticSummary: claimSummary(input.claimId, slug, input.method),
        typedSearchAttributes: [
          { key: CLAIM_ID, value: input.claimId },
          { key: LISTING_ID, value: listingId },
        ],
      });
    },
    async verifyClaimNow(claimId) {
      return message(claimWorkflowId(claimId), CHECK_DEADLINE_MS, (handle) => handle.executeUpdate(verifyNowUpdate));
    },
    async signalClaimLinkOpened(claimId) {
      await guarded(() =>
        connection().withDeadline(Date.now() + START_DEADLINE_MS, () =>
          client().workflow.getHandle(claimWorkflowId(claimId)).signal(emailLinkOpenedSignal),
        ),
      );
    },
    async signalClaimClosed(claimId) {
      await guarded(() =>
        connection().withDeadline(Date.now() + START_DEADLINE_MS, () =>
          client().workflow.getHandle(claimWorkflowId(claimId)).signal(claimClosedSignal),
        ),
      );
    },
    async retryOrder(number) {
      const retried = await message(orderWorkflowId(number), CHECK_DEADLINE_MS, (handle) => handle.executeUpdate(retryUpdate));
      return retried !== null;
    },
    async workflowStatus(workflowId) {
      const run = await message(workflowId, START_DEADLINE_MS, (handle) => handle.describe());
      return run ? statusOf(run.status.name) : 'missing';
    },
    async startOrder(input, listingIds) {
      await startBounded('orderWorkflow', orderStart(input, listingIds));
    },
    async signalPayment(input, listingIds, signal) {
      await guarded(() =>
        connection().withDeadline(Date.now() + START_DEADLINE_MS, () =>
          client().workflow.signalWithStart('orderWorkflow', {
            ...orderStart(input, listingIds),
            signal: paymentConfirmedSignal,
            signalArgs: [signal],
          }),
        ),
      );
    },
    async startWebhookDelivery(input, { listingId, replace }) {
      await startBounded('webhookDeliveryWorkflow', {
        taskQueue: TASK_QUEUES.webhooks,
        workflowId: webhookDeliveryWorkflowId(input.deliveryId),
        args: [input],
        // A repeated start joins the run; a redelivery replaces a run of an older round.
        workflowIdConflictPolicy: replace ? 'TERMINATE_EXISTING' : 'USE_EXISTING',
        staticSummary: webhookDeliverySummary(input.deliveryId, input.round),
        typedSearchAttributes: (listingId === null ? [] : [{ key: LISTING_ID, value: listingId }]) as SearchAttributePair[],
      });
    },
    async ping() {
      // Bounded: the SDK's own retries would outlive the readiness probe that asked.
      await track(connection().withDeadline(Date.now() + 2_000, () => connection().workflowService.getSystemInfo({})));
    },
    close: async () => {
      await Promise.allSettled([...inFlight]);
      await temporal?.connection.close();
    },
  };
}

function orderStart(input: OrderWorkflowInput, listingIds: number[]): WorkflowStartOptions<Workflows['orderWorkflow']> {
  return {
    taskQueue: TASK_QUEUES.orders,
    workflowId: orderWorkflowId(input.number),
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    staticSummary: orderSummary(input.number, listingIds),
    typedSearchAttributes: [
      { key: ORDER_NUMBER, value: input.number },
      ...listingIds.slice(0, 1).map((id) => ({ key: LISTING_ID, value: id })),
    ] as WorkflowStartOptions['typedSearchAttributes'],
  };
}

async function nullWhenNotFound<T>(send: () => Promise<T>): Promise<T | null> {
  try {
    return await send();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}

/** Temporal's status name as the port spells it (lower case, `canceled` as everywhere in this service). */
function statusOf(name: string): WorkflowStatus {
  return (name === 'CANCELLED' ? 'canceled' : name.toLowerCase()) as WorkflowStatus;
}

async function unavailableOnError<T>(start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw err;
    throw serviceUnavailable('The workflow service is not reachable; please retry shortly.', 5);
  }
}
