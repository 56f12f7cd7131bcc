import { orderRefusals } from '../domain/orders/deliverable.ts';
import type { OrderRow } from '../domain/orders/order-views.ts';
import {
  beginAttempt,
  isOpen,
  isStale,
  latestAttempt,
  markStaleSucceeded,
  moveAttempt,
  resumeAttempt,
  type AttemptState,
  type PaymentAttempt,
} from '../domain/orders/payment-attempts.ts';
import type { TestPaymentResult } from '../payments/test-provider/index.ts';
import { takeSucceededPayment } from './checkout-payments.ts';
import type { OperationContext } from './operation.ts';

/**
 * The pay page's one attempt at a time, and its check of what it sells before it charges
 * (person-only steps beside checkout-payments.ts, outside the registry like them).
 */

export type { PaymentAttempt } from '../domain/orders/payment-attempts.ts';
export { ATTEMPT_STALE_MS } from '../domain/orders/payment-attempts.ts';

type Ctx = Pick<OperationContext, 'db' | 'config' | 'workflows' | 'payments' | 'clock'>;

/** Why the order cannot be paid: one reason per line that can no longer be delivered. */
export type Refusal = { line: number; listingId: number | null; reason: string };

export type PayStart =
  /** This request charges; settle or release the attempt afterwards. */
  | { kind: 'charge'; attempt: PaymentAttempt }
  /** Another request's attempt is under way: nothing is charged. */
  | { kind: 'under_way'; attempt: PaymentAttempt }
  /** The order is paid, or its payment succeeded and is being applied: never a second charge. */
  | { kind: 'paid' }
  /** Something the order sells can no longer be delivered: nothing is charged. */
  | { kind: 'undeliverable'; reasons: Refusal[] };

/**
 * Begins this request's payment attempt of the order, or says why it must not charge. A stale
 * attempt (ATTEMPT_STALE_MS without news) is settled by asking the provider first: its succeeded
 * payment is taken as the result; without one the stale attempt is abandoned and this one begins.
 */
export async function beginPayment(c: Ctx, order: OrderRow): Promise<PayStart> {
  const now = c.clock.now();
  let begun = await beginAttempt(c.db, order.id, now);
  if (begun.kind === 'stale') {
    const paymentId = await takeSucceededPayment(c, order);
    if (paymentId) {
      await markStaleSucceeded(c.db, begun.attempt.id, paymentId, now);
      return { kind: 'paid' };
    }
    begun = await beginAttempt(c.db, order.id, now, { abandonStale: begun.attempt.id });
  }
  switch (begun.kind) {
    case 'started':
      return { kind: 'charge', attempt: begun.attempt };
    case 'busy':
    case 'stale':
      return settled(begun.attempt) ? { kind: 'paid' } : { kind: 'under_way', attempt: begun.attempt };
    case 'undeliverable':
      return { kind: 'undeliverable', reasons: begun.reasons };
    case 'closed':
      return { kind: 'paid' };
  }
}

/** The provider has the money or will confirm it by itself: the done page shows the rest. */
const settled = (a: PaymentAttempt) => a.state === 'succeeded' || a.state === 'processing';

const STATE_OF: Record<TestPaymentResult['status'], AttemptState> = {
  succeeded: 'succeeded',
  processing: 'processing',
  requires_action: 'action',
  awaiting_approval: 'action',
  declined: 'declined',
  refunded: 'succeeded',
};

/** Records what the provider answered for this request's attempt (a decline closes it: the person may try again). */
export async function settlePayment(c: Pick<OperationContext, 'db' | 'clock'>, attempt: PaymentAttempt, result: TestPaymentResult) {
  await moveAttempt(
    c.db,
    attempt.id,
    'charging',
    { state: STATE_OF[result.status], paymentId: result.paymentId, message: result.message },
    c.clock.now(),
  );
}

/** Nothing was charged (the page had to show a new total or a message first): the attempt closes. */
export async function releasePayment(c: Pick<OperationContext, 'db' | 'clock'>, attempt: PaymentAttempt) {
  await moveAttempt(c.db, attempt.id, 'charging', { state: 'released' }, c.clock.now());
}

/** The payer answers the provider's step: its attempt charges again, or undefined when that step is no longer open. */
export function resumePayment(c: Pick<OperationContext, 'db' | 'clock'>, order: OrderRow, paymentId: string) {
  return resumeAttempt(c.db, order.id, paymentId, c.clock.now());
}

/**
 * Where the order's payment stands for the pay page: an attempt under way (not stale), or
 * succeeded; else the latest closed attempt (a decline's message) and what cannot be delivered.
 */
export async function paymentStanding(
  c: Pick<OperationContext, 'db' | 'clock'>,
  order: OrderRow,
): Promise<
  | { kind: 'under_way'; attempt: PaymentAttempt }
  | { kind: 'paid'; attempt: PaymentAttempt }
  | { kind: 'payable'; last: PaymentAttempt | undefined; refusals: Refusal[] }
> {
  const now = c.clock.now();
  const last = await latestAttempt(c.db, order.id);
  if (isOpen(last) && !isStale(last, now)) return settled(last) ? { kind: 'paid', attempt: last } : { kind: 'under_way', attempt: last };
  return { kind: 'payable', last, refusals: await orderRefusals(c.db, order, now) };
}
