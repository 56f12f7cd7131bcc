import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { OrderActivities } from '../activities/orders.ts';
import type { OrderWorkflowInput } from '../domain/orders/order-flow.ts';
import { paymentConfirmedSignal, retryUpdate, UNDELIVERABLE } from './contracts/messages.ts';
import { deliverMail } from './mail-delivery.ts';

// Short: a worker that dies mid-activity is noticed at the timeout, then the step is retried.
const STEP_TIMEOUT = '10 seconds';
const FULFIL_TIMEOUT = '30 seconds';
/**
 * Runs from before this patch replay as they ran: the receipt before fulfilment, each line an
 * activity through the server. Newer runs fulfil lines as local activities (a worker killed
 * mid-line is noticed at the workflow task timeout, 10 s, not the activity's 30 s; no round trip
 * per line) while the receipt goes out alongside.
 */
const LOCAL_FULFILMENT_PATCH = 'order-local-fulfilment';
/**
 * A line fulfilLine finds undeliverable (failure type `undeliverable`) is refunded and the other
 * lines go on, instead of the order waiting in `attention` for support. Runs from before it,
 * whose fulfilment failed (then only as `FulfilmentRefused`), replay their `attention` path.
 */
const REFUND_UNDELIVERABLE_PATCH = 'order-refund-undeliverable';
/**
 * Runs from before this patch end as they ended: one last look at the queue after fulfilment,
 * payment steps retried without limit. Newer runs apply every queued payment before they
 * complete (one arriving while the receipt goes out is refunded, not dropped) and give a payment
 * step up to `stepRetry.maximumAttempts` tries before the order needs support.
 */
const PAYMENT_DRAIN_PATCH = 'order-payment-drain';
/** Payment-step retries of runs whose input has no `stepRetry` (started before it existed). */
const STEP_RETRY_DEFAULT = { initialIntervalMs: 1_000, maximumAttempts: 8 };

// The short database steps run as local activities: no round trip through the server per step,
// which keeps payment → fulfilled well under a second (bench/orders.ts).
const orders = proxyLocalActivities<OrderActivities>({
  startToCloseTimeout: STEP_TIMEOUT,
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
/**
 * `order:{number}`: waits for a payment until the checkout link expires, applies each payment
 * event once (deduplicated by event id; the order row decides paid / refund / attention), then
 * fulfils every line with retries. After the last try the order needs support (`attention`)
 * and the workflow waits for the `retry` update.
 */
export async function orderWorkflow(input: OrderWorkflowInput): Promise<{ status: string | null }> {
  const seen = new Set<number>();
  const queue: number[] = [];
  let retryRequested = false;
  setHandler(paymentConfirmedSignal, ({ eventId }) => {
    if (seen.has(eventId)) return;
    seen.add(eventId);
    queue.push(eventId);
  });
  setHandler(retryUpdate, () => {
    retryRequested = true;
    return 'retrying';
  });

  const local = patched(LOCAL_FULFILMENT_PATCH);
  const drains = patched(PAYMENT_DRAIN_PATCH);
  const mails: Promise<unknown>[] = [];
  // Older runs wait for the receipt before fulfilling; newer ones send it alongside and wait at the end.
  const sendReceipt = (ids: number[]) => {
    const sent = deliverMail(ids);
    if (!local) return sent;
    mails.push(sent);
    return undefined;
  };
  // Payment steps that failed for good (a refund refused): support takes over before the run ends.
  const problems: string[] = [];
  const apply = () => applyQueued(input, paymentSteps(input, drains), queue, sendReceipt, problems);
  const initial = await orders.orderStatus(input.number);
  if (initial === 'pending') {
    const remaining = Date.parse(input.expiresAt) - Date.now();
    const arrived = remaining > 0 && (await condition(() => queue.length > 0, remaining));
    if (!arrived) await orders.expireOrder(input.number);
  }
  // A run restarted by support for a paid order fulfils what is left.
  let paid = initial === 'paid' || initial === 'attention';
  paid = (await apply()) || paid;
  if (paid) {
    await fulfilAll(
      input,
      fulfilLineProxy(input, local),
      () => retryRequested,
      () => (retryRequested = false),
    );
    await apply(); // payments that came in meanwhile (duplicates, second payments)
  }
  if (drains) return drainAndComplete(input, queue, mails, apply, problems);
  await Promise.all(mails);
  await handOver(input, problems);
  return { status: await orders.orderStatus(input.number) };
}

/**
 * Applies every payment that reaches the order before the run ends: one that arrives while the
 * receipt goes out or the status is read is applied (refunded) too. No await lies between the
 * last look at the queue and the return, so a signal delivered after it makes Temporal refuse
 * the completion (the task is retried with the signal in its history) and the loop sees it.
 */
async function drainAndComplete(
  input: OrderWorkflowInput,
  queue: number[],
  mails: Promise<unknown>[],
  apply: () => Promise<boolean>,
  problems: string[],
): Promise<{ status: string | null }> {
  for (;;) {
    await Promise.all(mails);
    if (queue.length > 0) {
      await apply();
      continue;
    }
    await handOver(input, problems);
    const status = await orders.orderStatus(input.number);
    if (queue.length === 0) return { status };
  }
}

/** Support takes over an order whose payment steps failed for good, with the reasons. */
async function handOver(input: OrderWorkflowInput, problems: string[]): Promise<void> {
  if (problems.length === 0) return;
  await orders.markAttention(input.number, problems.join('; '));
  problems.length = 0;
}

type PaymentSteps = Pick<OrderActivities, 'applyPayment' | 'refundPayment'>;

/** applyPayment and refundPayment: bounded tries for runs with the drain patch, as before otherwise. */
function paymentSteps(input: OrderWorkflowInput, bounded: boolean): PaymentSteps {
  if (!bounded) return orders;
  const retry = input.stepRetry ?? STEP_RETRY_DEFAULT;
  return proxyLocalActivities<OrderActivities>({
    startToCloseTimeout: STEP_TIMEOUT,
    retry: {
      initialInterval: retry.initialIntervalMs,
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      maximumAttempts: retry.maximumAttempts,
    },
  });
}

/**
 * Applies the queued payment events; true when one of them paid the order. A step that failed for
 * good (its tries used up, or refused) is noted in `problems` and the next event is applied.
 */
async function applyQueued(
  input: OrderWorkflowInput,
  steps: PaymentSteps,
  queue: number[],
  sendReceipt: (ids: number[]) => unknown,
  problems: string[],
): Promise<boolean> {
  let paid = false;
  while (queue.length > 0) {
    const eventId = queue.shift()!;
    let outcome;
    try {
      outcome = await steps.applyPayment(input.number, eventId);
    } catch (err) {
      problems.push(`payment event ${eventId} could not be applied: ${causeOf(err)}`);
      continue;
    }
    if (outcome.kind === 'paid') {
      paid = true;
      if (outcome.mailIds.length) await sendReceipt(outcome.mailIds);
    } else if (outcome.kind === 'refund') {
      try {
        await steps.refundPayment(input.number, outcome.paymentId, outcome.amountCents, outcome.reason);
      } catch (err) {
        problems.push(`refund of payment ${outcome.paymentId} (${outcome.reason}) failed: ${causeOf(err)}`);
      }
    }
  }
  return paid;
}

type FulfilLine = OrderActivities['fulfilLine'];

/** fulfilLine with retries and back-off, then the order needs support; local for runs with the patch. */
function fulfilLineProxy(input: OrderWorkflowInput, local: boolean): FulfilLine {
  const options = {
    startToCloseTimeout: FULFIL_TIMEOUT,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: input.fulfilMaxAttempts },
  };
  return local ? proxyLocalActivities<OrderActivities>(options).fulfilLine : proxyActivities<OrderActivities>(options).fulfilLine;
}

async function fulfilAll(
  input: OrderWorkflowInput,
  fulfilLine: FulfilLine,
  retryRequested: () => boolean,
  resetRetry: () => void,
): Promise<void> {
  for (;;) {
    let failure: string | null = null;
    for (const line of await orders.openLines(input.number)) {
      try {
        await fulfilLine(line.id);
      } catch (err) {
        if (isUndeliverable(err) && patched(REFUND_UNDELIVERABLE_PATCH)) {
          await orders.refundUndeliverable(input.number, line.id, causeOf(err));
          continue;
        }
        failure = `line ${line.id} (${line.product}): ${causeOf(err)}`;
        break;
      }
    }
    if (failure === null) return orders.completeOrder(input.number);
    await orders.markAttention(input.number, failure);
    resetRetry();
    await condition(retryRequested);
    await orders.resumeOrder(input.number);
  }
}

function isUndeliverable(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type === UNDELIVERABLE;
}

function causeOf(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
}
