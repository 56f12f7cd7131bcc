import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/knex.ts';
import { AppError } from '../../errors/errors.ts';
import { isPayableAmount } from './payment-events.ts';
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
  assertTakeable(event);
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
    stepRetry: deps.config.orders.stepRetry,
  };
  await deps.workflows.signalPayment(
    flow,
    lines.map((l) => l.listing_id!),
    { eventId: stored.id },
  );
  return { ...result, order: order.number };
}

/**
 * The webhook checks every field before this; the success page's lookup comes here directly, so
 * the fields a payment row takes are checked once more: nothing malformed is ever stored.
 */
function assertTakeable(event: PaymentEvent): void {
  const errors = [];
  if (event.amountCents !== null && !isPayableAmount(event.amountCents)) errors.push({ path: 'amount', message: 'not a payable amount' });
  if (event.currency !== null && !/^[A-Z]{3}$/.test(event.currency)) errors.push({ path: 'currency', message: 'not a currency code' });
  if (!/^[\x20-\x7e]{1,255}$/.test(event.id)) errors.push({ path: 'id', message: 'not an event id' });
  if (errors.length) throw new AppError('invalid_webhook', 'The event has fields no payment can carry.', { errors });
}
