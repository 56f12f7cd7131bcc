import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/knex.ts';
import { queueMail } from '../../mail/outbox.ts';
import { isPayableAmount } from './payment-events.ts';
import { toPaymentEvent, type PaymentEvent, type ProviderName } from './payment-port.ts';
import { releaseHolds } from './capacity-holds.ts';
import { linesOf, invoiceUrl, type OrderRow } from './order-views.ts';
import { issueInvoice } from './invoices.ts';
import { receiptText } from './receipt.ts';
import { emitOrderEvent } from '../webhooks/emit.ts';

/** Stores a verified event once (unique provider event id); returns its row id either way. */
export async function storePaymentEvent(
  db: Db,
  provider: ProviderName,
  event: PaymentEvent,
  payload: unknown,
): Promise<{ id: number; isNew: boolean }> {
  const inserted = await db('payment_events')
    .insert({ provider, provider_event_id: event.id, type: event.type, order_number: event.orderNumber, payload: JSON.stringify(payload) })
    .onConflict(['provider', 'provider_event_id'])
    .ignore()
    .returning('id');
  if (inserted.length) return { id: Number(inserted[0].id), isNew: true };
  const row = await db('payment_events').where({ provider, provider_event_id: event.id }).first('id');
  return { id: Number(row!.id), isNew: false };
}

/** What one payment event did to its order. */
export type PaymentOutcome =
  | { kind: 'paid'; mailIds: number[] }
  | { kind: 'refund'; paymentId: string; amountCents: number; reason: string }
  | { kind: 'attention'; reason: string }
  | { kind: 'ignored'; reason: string };

/**
 * Applies a stored payment event to its order in one transaction: a pending order whose total
 * and currency match becomes `paid` (paid_at, the site's next invoice with the seller's details then,
 * promo counted, receipt queued); a mismatch needs support; a payment for an expired, canceled
 * or already paid order is to be refunded. Safe to repeat: the order row is locked and checked.
 */
export async function applyPayment(
  db: Db,
  config: Pick<Config, 'baseUrl' | 'mail'>,
  number: string,
  eventId: number,
): Promise<PaymentOutcome> {
  return db.transaction(async (trx) => {
    const order = await trx('orders').where({ number }).forUpdate().first();
    const stored = await trx('payment_events').where({ id: eventId }).first('provider', 'payload');
    if (!order || !stored) return { kind: 'ignored', reason: 'unknown order or event' };
    const event = toPaymentEvent(stored.payload);
    if (!event.paymentId) return { kind: 'ignored', reason: 'not a payment' };
    // Applied before: answer what that first application answered. The step may have committed
    // and then lost its result (worker killed before the workflow recorded it); a repeat that
    // said anything but "paid" would end the workflow with the order paid and never fulfilled.
    if (order.payment_id === event.paymentId) return appliedBefore(trx, order);
    const refund = (reason: string): PaymentOutcome => ({
      kind: 'refund',
      paymentId: event.paymentId!,
      amountCents: event.amountCents ?? 0,
      reason,
    });
    if (order.status === 'expired' || order.status === 'canceled') return refund(`payment for an order that is ${order.status}`);
    if (order.status !== 'pending') return refund('the order was already paid');
    const base = {
      payment_id: event.paymentId,
      payment_method: event.method,
      // An event stored before payloads were checked may carry an amount no column takes (1e30).
      paid_cents: isPayableAmount(event.amountCents) ? event.amountCents : null,
      paid_currency: event.currency,
      updated_at: trx.fn.now(),
    };
    if (event.amountCents !== order.total_cents || event.currency !== order.currency) {
      const reason = `paid ${event.amountCents} ${event.currency}, the order's total is ${order.total_cents} ${order.currency}`;
      await trx('orders')
        .where({ id: order.id })
        .update({ ...base, status: 'attention', attention_reason: reason });
      return { kind: 'attention', reason };
    }
    const invoice = await issueInvoice(trx, order.site_id);
    const [paid] = await trx('orders')
      .where({ id: order.id })
      .update({ ...base, status: 'paid', paid_at: trx.fn.now(), ...invoice, invoice_seller: JSON.stringify(invoice.invoice_seller) })
      .returning('*');
    await trx('promo_redemptions').where({ order_id: order.id }).update({ state: 'counted' });
    const mailIds = await queueReceipt(trx, config, paid);
    await emitOrderEvent(trx, config.baseUrl, 'order.paid', order.id, `order.paid:${order.number}`);
    return { kind: 'paid', mailIds };
  });
}

/** The outcome of a payment already applied to this order (same provider payment id). */
async function appliedBefore(trx: Db, order: OrderRow): Promise<PaymentOutcome> {
  if (order.paid_at) return { kind: 'paid', mailIds: await receiptIds(trx, order.number) };
  return { kind: 'attention', reason: order.attention_reason ?? 'the payment needs support' };
}

async function queueReceipt(trx: Db, config: Pick<Config, 'baseUrl'>, order: OrderRow): Promise<number[]> {
  const user = await trx('users').where({ id: order.user_id }).first('email');
  const lines = (await linesOf(trx, [order.id])).get(order.id)!;
  await queueMail(trx, {
    to: user!.email,
    subject: `Receipt for order ${order.number} (invoice ${order.invoice_label})`,
    text: receiptText(order, lines, invoiceUrl(config, order.number)),
    dedupeKey: `order-receipt:${order.number}`,
  });
  return receiptIds(trx, order.number);
}

async function receiptIds(trx: Db, number: string): Promise<number[]> {
  const rows = await trx('mail_outbox')
    .where({ dedupe_key: `order-receipt:${number}` })
    .select('id');
  return rows.map((r: { id: number }) => r.id);
}

/** The pending order's link has expired: `expired`, promo reservation and capacity holds released. No-op otherwise. */
export async function expireOrder(db: Db, number: string): Promise<boolean> {
  return db.transaction(async (trx) => {
    const order = await trx('orders').where({ number }).forUpdate().first('id', 'status');
    if (order?.status !== 'pending') return false;
    await trx('orders').where({ id: order.id }).update({ status: 'expired', updated_at: trx.fn.now() });
    await trx('promo_redemptions').where({ order_id: order.id, state: 'reserved' }).update({ state: 'released' });
    await releaseHolds(trx, order.id);
    return true;
  });
}

/**
 * Records a refund once per dedupe key (the provider call used the same key). `ended`: what the
 * refund took back (src/domain/orders/refund-effects.ts), told to the buyer's webhooks.
 */
export async function recordRefund(
  db: Db,
  baseUrl: string,
  refund: {
    number: string;
    lineId?: number | null;
    amountCents: number;
    reason: string;
    providerRefundId: string | null;
    dedupeKey: string;
    ended?: Record<string, unknown>[];
  },
): Promise<void> {
  const order = await db('orders').where({ number: refund.number }).first('id');
  const recorded = await db('refunds')
    .insert({
      order_id: order!.id,
      order_line_id: refund.lineId ?? null,
      amount_cents: refund.amountCents,
      reason: refund.reason,
      provider_refund_id: refund.providerRefundId,
      dedupe_key: refund.dedupeKey,
    })
    .onConflict('dedupe_key')
    .ignore()
    .returning('id');
  if (recorded.length > 0) {
    await emitOrderEvent(db, baseUrl, 'order.refunded', order!.id, `order.refunded:${refund.dedupeKey}`, {
      refund: { amount_cents: refund.amountCents, reason: refund.reason, ended: refund.ended ?? [] },
    });
  }
}

/** Support needs to act on the order (the workflow waits for `orders:retry`). */
export async function markAttention(db: Db, number: string, reason: string): Promise<void> {
  await db('orders')
    .where({ number })
    .update({ status: 'attention', attention_reason: reason.slice(0, 1000), updated_at: db.fn.now() });
}

/** Every line fulfilled: `fulfilled` (and the buyer's webhooks hear order.fulfilled). */
export async function completeOrder(db: Db, number: string, baseUrl: string): Promise<void> {
  await db.transaction(async (trx) => {
    const done = await trx('orders')
      .where({ number })
      .whereIn('status', ['paid', 'attention'])
      .update({ status: 'fulfilled', fulfilled_at: trx.fn.now(), attention_reason: null, updated_at: trx.fn.now() })
      .returning('id');
    if (done.length > 0) await emitOrderEvent(trx, baseUrl, 'order.fulfilled', done[0]!.id, `order.fulfilled:${number}`);
  });
}
