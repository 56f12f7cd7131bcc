import type { Db } from '../../db/knex.ts';
import type { PaymentAttemptTableRow } from '../tables.ts';
import { orderRefusals } from './deliverable.ts';

/**
 * One payment attempt of an order at a time (docs/decisions/one-payment-attempt.md). Pressing Pay
 * begins an attempt in the order's row lock; the partial unique index of `payment_attempts` is
 * the last word, so api processes racing on one order agree: one charges, the others are told
 * the payment is under way. An attempt stays open while it charges, waits for the payer's step
 * at the provider, is processing, or has succeeded (the order is paid or about to be); a decline,
 * a release (nothing charged: the page had to show something first) or abandonment closes it.
 */

export type PaymentAttempt = PaymentAttemptTableRow;
export type AttemptState = PaymentAttempt['state'];

const OPEN: AttemptState[] = ['charging', 'action', 'processing', 'succeeded'];

/**
 * An open attempt not moved on within this time is stale (its process died mid-charge, or the
 * payer left the provider's step): the next press of Pay asks the provider whether the order has
 * a succeeded payment, takes it if so, and otherwise abandons the stale attempt and begins anew.
 */
export const ATTEMPT_STALE_MS = 5 * 60_000;

export type BeginResult =
  /** This caller charges now. */
  | { kind: 'started'; attempt: PaymentAttempt }
  /** Another attempt is under way (or succeeded): nothing is charged. */
  | { kind: 'busy'; attempt: PaymentAttempt }
  /** An open attempt is stale: ask the provider, then begin again with `abandonStale`. */
  | { kind: 'stale'; attempt: PaymentAttempt }
  /** What the order sells can no longer be delivered: nothing is charged. */
  | { kind: 'undeliverable'; reasons: { line: number; listingId: number | null; reason: string }[] }
  /** The order no longer waits for payment. */
  | { kind: 'closed' };

/** The order's open attempt, if any, else its latest one. */
export async function latestAttempt(db: Db, orderId: number): Promise<PaymentAttempt | undefined> {
  return db('payment_attempts')
    .where({ order_id: orderId })
    .orderByRaw(`state IN ('${OPEN.join("','")}') DESC, id DESC`)
    .first();
}

export const isOpen = (a: PaymentAttempt | undefined): a is PaymentAttempt => !!a && OPEN.includes(a.state);
export const isStale = (a: PaymentAttempt, now: Date) =>
  a.state !== 'succeeded' && now.getTime() - a.updated_at.getTime() >= ATTEMPT_STALE_MS;

/**
 * Begins an attempt for a pending order: under the order's row lock, no open attempt (or a stale
 * one the caller has ruled out, `abandonStale`), and every line still deliverable.
 */
export async function beginAttempt(db: Db, orderId: number, now: Date, o: { abandonStale?: number } = {}): Promise<BeginResult> {
  try {
    return await db.transaction(async (trx) => {
      const order = await trx('orders').where({ id: orderId }).forUpdate().first('id', 'site_id', 'user_id', 'status');
      if (order?.status !== 'pending') return { kind: 'closed' };
      const open = await trx('payment_attempts').where({ order_id: orderId }).whereIn('state', OPEN).first();
      if (open) {
        if (!isStale(open, now)) return { kind: 'busy', attempt: open };
        if (o.abandonStale !== open.id) return { kind: 'stale', attempt: open };
        await trx('payment_attempts').where({ id: open.id }).update({ state: 'abandoned', updated_at: now });
      }
      const reasons = await orderRefusals(trx, order, now);
      if (reasons.length) return { kind: 'undeliverable', reasons };
      const [attempt] = await trx('payment_attempts')
        .insert({ order_id: orderId, state: 'charging', started_at: now, updated_at: now })
        .returning('*');
      return { kind: 'started', attempt: attempt! };
    });
  } catch (err) {
    // The index agrees with the lock; should anything write around the lock, the loser is told "under way".
    if ((err as { constraint?: string }).constraint !== 'payment_attempts_one_open') throw err;
    return { kind: 'busy', attempt: (await latestAttempt(db, orderId))! };
  }
}

/**
 * Moves the caller's own attempt on: `from` is the state it must still be in (an attempt
 * abandoned as stale meanwhile is not revived). Returns the attempt, or undefined if it moved.
 */
export async function moveAttempt(
  db: Db,
  attemptId: number,
  from: AttemptState,
  to: { state: AttemptState; paymentId?: string | null; message?: string | null },
  now: Date,
): Promise<PaymentAttempt | undefined> {
  const [row] = await db('payment_attempts')
    .where({ id: attemptId, state: from })
    .update({
      state: to.state,
      ...(to.paymentId !== undefined ? { provider_payment_id: to.paymentId } : {}),
      ...(to.message !== undefined ? { message: to.message?.slice(0, 1000) ?? null } : {}),
      updated_at: now,
    })
    .returning('*');
  return row;
}

/**
 * The payer answers the provider's step of the order's open attempt: only the step of that
 * attempt may be answered (an abandoned one's cannot charge later), and only once at a time.
 */
export async function resumeAttempt(db: Db, orderId: number, paymentId: string, now: Date): Promise<PaymentAttempt | undefined> {
  const [row] = await db('payment_attempts')
    .where({ order_id: orderId, provider_payment_id: paymentId, state: 'action' })
    .update({ state: 'charging', updated_at: now })
    .returning('*');
  return row;
}

/** A stale attempt whose payment the provider reports succeeded: it is the order's result. */
export async function markStaleSucceeded(db: Db, attemptId: number, paymentId: string | null, now: Date): Promise<void> {
  await db('payment_attempts')
    .where({ id: attemptId })
    .whereIn('state', ['charging', 'action', 'processing'])
    .update({ state: 'succeeded', provider_payment_id: paymentId, updated_at: now });
}
