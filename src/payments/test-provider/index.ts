import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../../db/knex.ts';
import type { OrderConfig } from '../../config/orders.ts';
import { loadUndici } from '../../lib/undici.ts';
import { RefundRefusedError, toPaymentEvent, type PaymentEvent, type PaymentProvider } from '../../domain/orders/payment-port.ts';
import { signWebhook, verifySignedEvent } from '../signature.ts';
import { cardOutcome, refusesRefunds, type CardDetails } from './cards.ts';

/** A row of test_payments as src/domain/tables.ts declares it (through knex's table types: this layer imports nothing above it). */
type TestPaymentTableRow = Knex.ResolveTableType<Knex.TableType<'test_payments'>>;

export const TEST_METHODS = ['card', 'wallet', 'account', 'crypto'] as const satisfies readonly TestPaymentTableRow['method'][];
export type TestMethod = (typeof TEST_METHODS)[number];

/** Where a simulated payment stands after a step on the pay page. */
export type TestPaymentStatus = TestPaymentTableRow['status'];

export interface TestPaymentResult {
  paymentId: string;
  status: TestPaymentStatus;
  /** What the page tells the payer (a decline's reason). */
  message: string | null;
}

/** A row of test_payments, as written (created_at is the database's). */
type TestPaymentRow = Omit<TestPaymentTableRow, 'created_at'>;

/** The test adapter's own steps, used by the pay page (not part of the port: Stripe's page does these). */
export interface TestPayments {
  pay(order: { number: string; amountCents: number; currency: string }, method: TestMethod, card?: CardDetails): Promise<TestPaymentResult>;
  /** The payer's answer to an authentication (card) or approval (wallet, account) step. */
  decide(paymentId: string, orderNumber: string, approve: boolean): Promise<TestPaymentResult>;
  payment(paymentId: string): Promise<TestPaymentRow | undefined>;
}

const STRIPE_TYPE: Record<TestMethod, string> = { card: 'card', wallet: 'card', account: 'paypal', crypto: 'crypto' };

/**
 * Simulated card, wallet, account and crypto payments. A succeeded payment is announced by a
 * webhook signed exactly like Stripe's, POSTed to our own endpoint, so tests and development
 * exercise the one verification path production uses.
 */
export function createTestProvider(db: Db, config: OrderConfig): PaymentProvider & TestPayments {
  const secret = config.test.webhookSecret;
  const setStatus = (id: string, status: TestPaymentStatus) => db('test_payments').where({ id }).update({ status });
  const eventOf = (row: TestPaymentRow) => ({
    id: `evt_${row.id}`,
    object: 'event',
    type: 'payment_intent.succeeded',
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: row.id,
        object: 'payment_intent',
        amount: row.amount_cents,
        amount_received: row.amount_cents,
        currency: row.currency.toLowerCase(),
        status: 'succeeded',
        metadata: { order_number: row.order_number, method: row.method },
        payment_method_types: [STRIPE_TYPE[row.method]],
      },
    },
  });
  async function succeed(row: TestPaymentRow): Promise<TestPaymentResult> {
    const { request } = loadUndici();
    await setStatus(row.id, 'succeeded');
    const payload = JSON.stringify(eventOf(row));
    // Delivered before the page answers; a failed delivery is covered by the success page asking findSucceededPayment.
    await request(config.test.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signWebhook(payload, secret) },
      body: payload,
      headersTimeout: 10_000,
    })
      .then((res) => res.body.dump())
      .catch(() => {});
    return { paymentId: row.id, status: 'succeeded', message: null };
  }
  const row = (id: string): Promise<TestPaymentRow | undefined> => db('test_payments').where({ id }).first();
  return {
    name: 'test',
    verifyWebhook: (raw, signature) => toPaymentEvent(verifySignedEvent(raw, signature, secret)),
    async refund(paymentId, amountCents) {
      // Payments announced only by a signed webhook (tests, support scripts) are not in the table.
      const payment = await row(paymentId);
      if (payment?.refunds_refused) throw new RefundRefusedError('the card issuer refuses refunds to this card');
      if (payment && amountCents > payment.amount_cents)
        throw new RefundRefusedError(`the refund (${amountCents}) is more than the payment (${payment.amount_cents})`);
      await setStatus(paymentId, 'refunded');
      return { refundId: `re_${paymentId.slice(3)}` };
    },
    async findSucceededPayment(orderNumber): Promise<PaymentEvent | null> {
      const paid = await db('test_payments')
        .where({ order_number: orderNumber })
        .whereIn('status', ['succeeded', 'refunded'])
        .orderBy('created_at')
        .first();
      return paid ? toPaymentEvent(eventOf(paid)) : null;
    },
    payment: row,
    async pay(order, method, card) {
      const outcome = method === 'card' ? cardOutcome(card!) : null;
      const status: TestPaymentStatus =
        method === 'card'
          ? outcome!.status === 'succeeded'
            ? 'processing'
            : outcome!.status
          : method === 'crypto'
            ? 'processing'
            : 'awaiting_approval';
      const created: TestPaymentRow = {
        id: `pi_test_${randomBytes(12).toString('hex')}`,
        order_number: order.number,
        method,
        status,
        amount_cents: order.amountCents,
        currency: order.currency,
        refunds_refused: method === 'card' && refusesRefunds(card!),
      };
      await db('test_payments').insert(created);
      if (outcome?.status === 'succeeded') return succeed(created);
      if (method === 'crypto') {
        // Confirms on the chain "shortly after"; the page shows processing until then.
        setTimeout(() => void succeed(created).catch(() => {}), config.test.cryptoDelayMs).unref();
      }
      return { paymentId: created.id, status, message: outcome?.message ?? null };
    },
    async decide(paymentId, orderNumber, approve) {
      const current = await row(paymentId);
      if (!current || current.order_number !== orderNumber || !['requires_action', 'awaiting_approval'].includes(current.status)) {
        return { paymentId, status: current?.status ?? 'declined', message: 'This payment step is no longer open.' };
      }
      if (approve) return succeed(current);
      await setStatus(paymentId, 'declined');
      const message =
        current.method === 'card'
          ? 'The card authentication failed. Try again or use another method.'
          : 'The payment was declined. Try again or use another method.';
      return { paymentId, status: 'declined', message };
    },
  };
}
