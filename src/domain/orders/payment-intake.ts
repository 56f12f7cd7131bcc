import type { Config } from '../../config.ts';
import type { Db } from '../../db/knex.ts';
import type { PaymentEvent, ProviderName } from './payment-port.ts';
import type { WorkflowStarter } from '../ports.ts';
import type { OrderWorkflowInput } from './order-flow.ts';
import { storePaymentEvent } from './payment.ts';

export interface IntakeDeps {
  db: Db;
  config: Config;
  workflows: WorkflowStarter;
}

export interface IntakeResult {
  eventId: number;
  duplicate: boolean;
  /** The order signalled, or null (not a payment, or no such order). */
  order: string | null;
}

/**
 * Takes a verified payment event (webhook or the success page's lookup): stores it once, then
 * signals `order:{number}` with signalWithStart, so a closed workflow (expired order) starts again
 * and refunds. The same event signalled twice is ignored by the workflow.
 */
export async function takePaymentEvent(
  deps: IntakeDeps,
  provider: ProviderName,
  event: PaymentEvent,
  payload: unknown,
): Promise<IntakeResult> {
  const stored = await storePaymentEvent(deps.db, provider, event, payload);
  const result = { eventId: stored.id, duplicate: !stored.isNew, order: null };
  if (!event.succeeded || !event.orderNumber) return result;
  const order = await deps.db('orders').where({ number: event.orderNumber }).first('id', 'number', 'expires_at');
  if (!order) return result;
  const lines = await deps.db('order_lines').where({ order_id: order.id }).whereNotNull('listing_id').distinct('listing_id');
  const flow: OrderWorkflowInput = {
    number: order.number,
    expiresAt: order.expires_at.toISOString(),
    fulfilMaxAttempts: deps.config.orders.fulfilMaxAttempts,
  };
  await deps.workflows.signalPayment(
    flow,
    lines.map((l: { listing_id: number }) => l.listing_id),
    { eventId: stored.id },
  );
  return { ...result, order: order.number };
}
