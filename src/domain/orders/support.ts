import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/knex.ts';
import { AppError, notFound } from '../../errors/errors.ts';
import { queueMail } from '../../mail/outbox.ts';
import { siteKeyOf } from '../launches/owner-actions.ts';
import type { WorkflowStarter } from '../ports.ts';
import { systemClock, type Clock } from '../time/clock.ts';
import { requireProvider, type PaymentProvider } from './payment-port.ts';
import type { OrderWorkflowInput } from './order-flow.ts';
import { linesOf, type OrderLineRow, type OrderRow } from './order-views.ts';
import { recordRefund } from './payment.ts';
import { endedForWebhook, refundLines, type RefundedLine } from './refund-effects.ts';
import { refundMailText } from './refund-words.ts';

/** What support sees of an order: the row, the buyer's email, its lines, payment events and refunds. */
export async function orderDetails(db: Db, number: string) {
  const order = await db('orders').where({ number: number.trim().toUpperCase() }).first();
  if (!order) throw notFound(`Order ${number}`);
  const [buyer, lines, events, refunds] = await Promise.all([
    db('users').where({ id: order.user_id }).first('email'),
    linesOf(db, [order.id]).then((m) => m.get(order.id)!),
    db('payment_events')
      .where({ order_number: order.number })
      .orderBy('id')
      .select('id', 'provider', 'provider_event_id', 'type', 'received_at'),
    db('refunds')
      .where({ order_id: order.id })
      .orderBy('id')
      .select('amount_cents', 'reason', 'order_line_id', 'provider_refund_id', 'created_at'),
  ]);
  return { order, buyerEmail: buyer!.email, lines, events, refunds };
}

/**
 * `orders:retry`: an Update on the running workflow (it retries the unfulfilled lines); when the
 * workflow is closed while the order is stuck (paid or attention), a new run fulfils what is left.
 */
export async function retryOrder(db: Db, config: Config, workflows: WorkflowStarter, number: string): Promise<'updated' | 'restarted'> {
  const { order, lines } = await orderDetails(db, number);
  if (!['paid', 'attention'].includes(order.status) || !order.paid_at) {
    throw new AppError(
      'order_not_stuck',
      `Order ${order.number} is ${order.status}; only paid orders that are not fulfilled can be retried.`,
    );
  }
  if (await workflows.retryOrder(order.number)) return 'updated';
  const input: OrderWorkflowInput = {
    number: order.number,
    expiresAt: order.expires_at.toISOString(),
    fulfilMaxAttempts: config.orders.fulfilMaxAttempts,
    stepRetry: config.orders.stepRetry,
  };
  await workflows.startOrder(input, [...new Set(lines.map((l) => l.listing_id).filter((id): id is number => id !== null))]);
  return 'restarted';
}

/** What a support refund needs besides the database. */
export interface RefundDeps {
  config: Pick<Config, 'baseUrl'>;
  payments: PaymentProvider | null;
  /** Wakes the flow of a listing whose scheduled paid launch the refund canceled (it then ends). */
  workflows?: Pick<WorkflowStarter, 'recheckLaunch'>;
  /** Which weeks and days are still to come. @default systemClock */
  clock?: Clock;
}

/** What a caller adds to a refund. */
export interface RefundOptions {
  /**
   * Runs in the refund's transaction after its effects (the staff audit row), so the record and
   * the effect commit together or not at all.
   */
  inTransaction?: (trx: Db, done: { order: OrderRow; amountCents: number; refunded: RefundedLine[] }) => Promise<void>;
}

/**
 * `orders:refund`: refunds the whole paid order, or one line (its net plus VAT), once each. The
 * money goes back first (once per key at the provider); then, in one transaction, the lines are
 * marked refunded, what they bought ends (src/domain/orders/refund-effects.ts), the refund is
 * recorded with the `order.refunded` event, and the buyer gets a mail saying what ended.
 */
export async function refundOrder(
  db: Db,
  deps: RefundDeps,
  number: string,
  position?: number,
  options: RefundOptions = {},
): Promise<{ amountCents: number; refunded: RefundedLine[] }> {
  const { order, lines } = await orderDetails(db, number);
  if (!order.payment_id || !order.paid_at) throw new AppError('order_not_paid', `Order ${order.number} has no payment to refund.`);
  const line = position === undefined ? null : lines.find((l) => l.position === position);
  if (position !== undefined && !line) throw notFound(`Line ${position} of order ${order.number}`);
  const open = (line ? [line] : lines).filter((l) => !l.refunded_at);
  if (!open.length) throw new AppError('already_refunded', 'Already refunded.');
  const amountCents = open.reduce((sum, l: OrderLineRow) => sum + l.net_cents + l.vat_cents, 0);
  const dedupeKey = `support-refund:${order.number}:${line ? line.position : 'all'}`;
  const { refundId } = await requireProvider(deps.payments).refund(order.payment_id, amountCents, dedupeKey);
  const now = (deps.clock ?? systemClock).now();
  const refunded = await db.transaction(async (trx) => {
    await trx('orders').where({ id: order.id }).forUpdate().first('id');
    const done = await refundLines(
      trx,
      order,
      open.map((l) => l.id),
      now,
    );
    await recordRefund(trx, deps.config.baseUrl, {
      number: order.number,
      lineId: line?.id ?? null,
      amountCents,
      reason: 'support refund',
      providerRefundId: refundId,
      dedupeKey,
      ended: endedForWebhook(done),
    });
    if (done.length) await mailRefund(trx, order, amountCents, done, dedupeKey);
    await options.inTransaction?.(trx, { order, amountCents, refunded: done });
    return done;
  });
  await wakeCanceledLaunches(db, deps, refunded);
  return { amountCents, refunded };
}

async function mailRefund(trx: Db, order: OrderRow, amountCents: number, refunded: RefundedLine[], dedupeKey: string) {
  const user = await trx('users').where({ id: order.user_id }).first('email');
  await queueMail(trx, {
    to: user!.email,
    subject: `Refund for order ${order.number}`,
    text: refundMailText(order, amountCents, refunded),
    dedupeKey: `refund-mail:${dedupeKey}`,
  });
}

/**
 * The flows of listings sent back to choosing a launch would find that out at their week anyway
 * (the listing is no longer scheduled); woken now, they end now. Temporal being away is no reason
 * to fail a refund that is done.
 */
async function wakeCanceledLaunches(db: Db, deps: RefundDeps, refunded: RefundedLine[]): Promise<void> {
  if (!deps.workflows) return;
  const listings = refunded.flatMap(({ ended }) => ended.filter((e) => e.kind === 'launch').map((e) => e.listing_id));
  for (const listingId of listings) {
    const listing = await db('listings').where({ id: listingId }).first('site_id');
    if (!listing) continue;
    await deps.workflows.recheckLaunch(listingId, await siteKeyOf(db, listing)).catch(() => undefined);
  }
}
