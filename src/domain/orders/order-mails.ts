import type { Db } from '../../db/knex.ts';

/** A mail sent (or queued) about an order, as support reads it. */
export interface OrderMail {
  id: number;
  to: string;
  subject: string;
  queuedAt: Date;
  sentAt: Date | null;
  attempts: number;
  lastError: string | null;
  givenUpAt: Date | null;
}

/**
 * The mail the outbox holds about an order: its receipt, refund mails, the notice of a line that
 * could not be delivered. The outbox has no order column; each of these is queued once under a
 * dedupe key that names the order (src/domain/orders/payment.ts, support.ts, undeliverable.ts).
 */
export async function orderMails(db: Db, number: string): Promise<OrderMail[]> {
  const rows = await db('mail_outbox')
    .where({ dedupe_key: `order-receipt:${number}` })
    .orWhere('dedupe_key', 'like', `refund-mail:support-refund:${number}:%`)
    .orWhere('dedupe_key', 'like', `undeliverable:${number}:%`)
    .orderBy('id')
    .select('id', 'to_address', 'subject', 'created_at', 'sent_at', 'attempts', 'last_error', 'failed_at');
  return rows.map((m) => ({
    id: m.id,
    to: m.to_address,
    subject: m.subject,
    queuedAt: m.created_at,
    sentAt: m.sent_at,
    attempts: m.attempts,
    lastError: m.last_error,
    givenUpAt: m.failed_at,
  }));
}
