import type { Config } from '../../config.ts';
import type { Db } from '../../db/knex.ts';
import { AppError, notFound } from '../../errors.ts';
import type { WorkflowStarter } from '../ports.ts';
import { requireProvider, type PaymentProvider } from './payment-port.ts';
import { RETRY_UPDATE, orderWorkflowId, type OrderWorkflowInput } from './order-flow.ts';
import { linesOf, type OrderLineRow } from './order-views.ts';
import { releaseLineHolds } from './capacity-holds.ts';
import { recordRefund } from './payment.ts';

/** What support sees of an order: the row, its lines, payment events and refunds. */
export async function orderDetails(db: Db, number: string) {
  const order = await db('orders').where({ number: number.trim().toUpperCase() }).first();
  if (!order) throw notFound(`Order ${number}`);
  const [lines, events, refunds] = await Promise.all([
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
  return { order, lines, events, refunds };
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
  const handle = workflows.client.workflow.getHandle(orderWorkflowId(order.number));
  const running = await handle.describe().then(
    (d) => d.status.name === 'RUNNING',
    () => false,
  );
  if (running) {
    await handle.executeUpdate(RETRY_UPDATE);
    return 'updated';
  }
  const input: OrderWorkflowInput = {
    number: order.number,
    expiresAt: order.expires_at.toISOString(),
    fulfilMaxAttempts: config.orders.fulfilMaxAttempts,
    stepRetry: config.orders.stepRetry,
  };
  await workflows.startOrder(input, [...new Set(lines.map((l) => l.listing_id).filter((id): id is number => id !== null))]);
  return 'restarted';
}

/** `orders:refund`: refunds the whole paid order, or one line (its net plus VAT), once each. */
export async function refundOrder(
  db: Db,
  config: Pick<Config, 'baseUrl'>,
  payments: PaymentProvider | null,
  number: string,
  position?: number,
): Promise<{ amountCents: number }> {
  const { order, lines } = await orderDetails(db, number);
  if (!order.payment_id || !order.paid_at) throw new AppError('order_not_paid', `Order ${order.number} has no payment to refund.`);
  const line = position === undefined ? null : lines.find((l) => l.position === position);
  if (position !== undefined && !line) throw notFound(`Line ${position} of order ${order.number}`);
  const open = (line ? [line] : lines).filter((l) => !l.refunded_at);
  if (!open.length) throw new AppError('already_refunded', 'Already refunded.');
  const amountCents = open.reduce((sum, l: OrderLineRow) => sum + l.net_cents + l.vat_cents, 0);
  const dedupeKey = `support-refund:${order.number}:${line ? line.position : 'all'}`;
  const { refundId } = await requireProvider(payments).refund(order.payment_id, amountCents, dedupeKey);
  await recordRefund(db, config.baseUrl, {
    number: order.number,
    lineId: line?.id ?? null,
    amountCents,
    reason: 'support refund',
    providerRefundId: refundId,
    dedupeKey,
  });
  await db('order_lines')
    .whereIn(
      'id',
      open.map((l) => l.id),
    )
    .update({ refunded_at: db.fn.now() });
  for (const l of open) await releaseLineHolds(db, l.id);
  const left = await db('order_lines').where({ order_id: order.id }).whereNull('refunded_at').first('id');
  if (!left) await db('orders').where({ id: order.id }).update({ status: 'refunded', updated_at: db.fn.now() });
  return { amountCents };
}
