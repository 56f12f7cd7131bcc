import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/knex.ts';
import { queueMail } from '../../mail/outbox.ts';
import { requireProvider, type PaymentProvider } from './payment-port.ts';
import type { OrderLineRow, OrderRow } from './order-views.ts';
import { recordRefund } from './payment.ts';
import { endedForWebhook, refundLines } from './refund-effects.ts';

/**
 * A paid line that cannot be delivered (fulfilment threw Undeliverable) is refunded at once, not
 * left to support: we never keep money for something we sold twice. The refund is
 * the LINE's share of the payment (its net after discount plus its VAT), not the whole order: the
 * other lines are still delivered, and the order's lines add up to its total. The order becomes
 * `refunded` when no line is left unrefunded; the buyer gets a notification and a mail.
 */
export async function refundUndeliverableLine(
  db: Db,
  config: Config,
  payments: PaymentProvider | null,
  number: string,
  lineId: number,
  reason: string,
  now: Date,
): Promise<{ amountCents: number }> {
  const order = await db('orders').where({ number }).first();
  const line = order && (await db('order_lines').where({ id: lineId, order_id: order.id }).first());
  if (!order || !line) throw new Error(`order ${number} has no line ${lineId}`);
  const amountCents = line.net_cents + line.vat_cents;
  if (line.refunded_at) return { amountCents };
  const dedupeKey = `undeliverable:${order.number}:${line.position}`;
  // Once per key at the provider too, so a retry of this step never refunds twice. A line free of charge has nothing to give back.
  const refundId =
    amountCents > 0 && order.payment_id
      ? (await requireProvider(payments).refund(order.payment_id, amountCents, dedupeKey)).refundId
      : null;
  await db.transaction(async (trx) => {
    await trx('orders').where({ id: order.id }).forUpdate().first('id');
    // The same path as a support refund: nothing was delivered, so there is normally nothing to end,
    // but whatever a failed try left behind (rows keyed by this line) goes with the line.
    const refunded = await refundLines(trx, order, [line.id], now);
    await recordRefund(trx, config.baseUrl, {
      number: order.number,
      lineId: line.id,
      amountCents,
      reason: `undeliverable: ${reason}`.slice(0, 1000),
      providerRefundId: refundId,
      dedupeKey,
      ended: endedForWebhook(refunded),
    });
    await tellBuyer(trx, order, line, amountCents, reason, dedupeKey);
  });
  return { amountCents };
}

const money = (cents: number, currency: string) => `${currency} ${(cents / 100).toFixed(2)}`;

/** An in-app notification (about the line's listing) and a mail to the buyer, once per refund. */
async function tellBuyer(trx: Db, order: OrderRow, line: OrderLineRow, amountCents: number, reason: string, dedupeKey: string) {
  const title = `Order ${order.number}: ${line.product} refunded`;
  const body =
    `We could not deliver "${line.product}" of order ${order.number} (${reason}), so we refunded ` +
    `${money(amountCents, order.currency)} to your payment method. Nothing else is needed from you.`;
  if (line.listing_id !== null) {
    await trx('notifications')
      .insert({ user_id: order.user_id, kind: 'order_refund', listing_id: line.listing_id, title, body, dedupe_key: dedupeKey })
      .onConflict('dedupe_key')
      .ignore();
  }
  const user = await trx('users').where({ id: order.user_id }).first('email');
  await queueMail(trx, { to: user!.email, subject: title, text: body, dedupeKey });
}
