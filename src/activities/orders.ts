import { ApplicationFailure } from '@temporalio/activity';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/knex.ts';
import { FulfilmentRefused, Undeliverable, fulfilLine, openLines } from '../domain/orders/fulfilment.ts';
import { UNDELIVERABLE } from '../workflows/contracts/messages.ts';
import { applyPayment, completeOrder, expireOrder, markAttention, recordRefund, type PaymentOutcome } from '../domain/orders/payment.ts';
import { refundUndeliverableLine } from '../domain/orders/undeliverable.ts';
import { isPayableAmount } from '../domain/orders/payment-events.ts';
import { RefundRefusedError, requireProvider } from '../domain/orders/payment-port.ts';
import type { PaymentProvider, WorkflowStarter } from '../domain/ports.ts';
import type { Clock } from '../domain/time/clock.ts';

export interface OrderActivityDeps {
  db: Db;
  config: Config;
  /** Fulfilling a launch starts or signals the listing's workflow. */
  workflows: WorkflowStarter;
  /** Refunds; null when the server has no payment provider. */
  payments: PaymentProvider | null;
  /** What "can this line still be delivered" is decided against (its week, its billboard days). */
  clock: Clock;
}

/** Activities of `order:{number}`; thin wrappers over the orders domain. */
export function createOrderActivities({ db, config, workflows, payments, clock }: OrderActivityDeps) {
  return {
    async orderStatus(number: string): Promise<string | null> {
      return (await db('orders').where({ number }).first('status'))?.status ?? null;
    },
    applyPayment: (number: string, eventId: number): Promise<PaymentOutcome> => applyPayment(db, config, number, eventId),
    /**
     * Refunds a payment that must not be kept (expired, canceled or already paid order); once per
     * payment. A refund that can never be made fails for good (non-retryable): the workflow then
     * hands the order to support instead of retrying for ever.
     */
    async refundPayment(number: string, paymentId: string, amountCents: number, reason: string): Promise<void> {
      if (!isPayableAmount(amountCents)) {
        throw ApplicationFailure.nonRetryable(`the payment's amount (${amountCents}) cannot be refunded`, 'MalformedAmount');
      }
      const dedupeKey = `refund:${paymentId}`;
      let refundId: string;
      try {
        ({ refundId } = await requireProvider(payments).refund(paymentId, amountCents, dedupeKey));
      } catch (err) {
        if (err instanceof RefundRefusedError)
          throw ApplicationFailure.nonRetryable(`the provider refused: ${err.message}`, 'RefundRefused');
        throw err;
      }
      await recordRefund(db, config.baseUrl, { number, amountCents, reason, providerRefundId: refundId, dedupeKey });
    },
    expireOrder: (number: string): Promise<boolean> => expireOrder(db, number),
    openLines: (number: string) => openLines(db, number),
    async fulfilLine(lineId: number): Promise<{ fulfilledAt: string }> {
      try {
        return await fulfilLine({ db, workflows, baseUrl: config.baseUrl, now: clock.now() }, lineId);
      } catch (err) {
        if (err instanceof FulfilmentRefused) throw ApplicationFailure.nonRetryable(err.message, 'FulfilmentRefused');
        if (err instanceof Undeliverable) throw ApplicationFailure.nonRetryable(err.message, UNDELIVERABLE);
        throw err;
      }
    },
    /** A line fulfilLine found `undeliverable`: refunded (its share of the payment), the buyer told; once per line. */
    async refundUndeliverable(number: string, lineId: number, reason: string): Promise<void> {
      await refundUndeliverableLine(db, config, payments, number, lineId, reason, clock.now());
    },
    markAttention: (number: string, reason: string): Promise<void> => markAttention(db, number, reason),
    /** Support asked for a retry: the order is `paid` again while its lines are retried. */
    async resumeOrder(number: string): Promise<void> {
      await db('orders').where({ number, status: 'attention' }).whereNotNull('paid_at').update({ status: 'paid', attention_reason: null });
    },
    completeOrder: (number: string): Promise<void> => completeOrder(db, number, config.baseUrl),
  };
}

export type OrderActivities = ReturnType<typeof createOrderActivities>;
