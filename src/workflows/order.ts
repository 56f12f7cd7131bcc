import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  defineSignal,
  defineUpdate,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { MailActivities } from '../activities/mail.ts';
import type { OrderActivities } from '../activities/orders.ts';
import type { OrderWorkflowInput, PaymentConfirmed, UndeliverableType } from '../domain/orders/order-flow.ts';

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
 * lines go on, instead of the order waiting in `attention` (issue 20 §1). Runs from before it,
 * whose fulfilment failed (then only as `FulfilmentRefused`), replay their `attention` path.
 */
const REFUND_UNDELIVERABLE_PATCH = 'order-refund-undeliverable';
const UNDELIVERABLE: UndeliverableType = 'undeliverable';

// The short database steps run as local activities: no round trip through the server per step,
// which keeps payment → fulfilled well under a second (bench/orders.ts).
const orders = proxyLocalActivities<OrderActivities>({
  startToCloseTimeout: STEP_TIMEOUT,
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
const { deliverMail } = proxyActivities<MailActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export const paymentConfirmedSignal = defineSignal<[PaymentConfirmed]>('paymentConfirmed');
/** Support's `orders:retry`: try the unfulfilled lines again. */
export const retryUpdate = defineUpdate<string>('retry');

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
  const mails: Promise<unknown>[] = [];
  // Older runs wait for the receipt before fulfilling; newer ones send it alongside and wait at the end.
  const sendReceipt = (ids: number[]) => {
    const sent = deliverMail(ids);
    if (!local) return sent;
    mails.push(sent);
    return undefined;
  };
  const apply = () => applyQueued(input, queue, sendReceipt);
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
  await Promise.all(mails);
  return { status: await orders.orderStatus(input.number) };
}

/** Applies the queued payment events; true when one of them paid the order. */
async function applyQueued(input: OrderWorkflowInput, queue: number[], sendReceipt: (ids: number[]) => unknown): Promise<boolean> {
  let paid = false;
  while (queue.length > 0) {
    const outcome = await orders.applyPayment(input.number, queue.shift()!);
    if (outcome.kind === 'paid') {
      paid = true;
      if (outcome.mailIds.length) await sendReceipt(outcome.mailIds);
    } else if (outcome.kind === 'refund') {
      await orders.refundPayment(input.number, outcome.paymentId, outcome.amountCents, outcome.reason);
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
