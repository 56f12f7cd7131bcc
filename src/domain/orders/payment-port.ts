/**
 * The PaymentProvider port: everything orders need from whoever moves the money. Adapters:
 * `test-provider/` (simulated methods, signed webhooks in Stripe's format; refused in production)
 * and `stripe/` (the official SDK). Both deliver Stripe-format events, verified the same way.
 */
import { AppError } from '../../errors/errors.ts';

export type ProviderName = 'test' | 'stripe';

/** A verified webhook event, reduced to what orders use. */
export interface PaymentEvent {
  /** The provider's event id (stored once in payment_events). */
  id: string;
  /** The provider's event type, e.g. `payment_intent.succeeded`. */
  type: string;
  /** True for the event that confirms a payment. */
  succeeded: boolean;
  /** The order the payment is for (from the payment's metadata), when it names one. */
  orderNumber: string | null;
  paymentId: string | null;
  amountCents: number | null;
  /** Upper case (USD). */
  currency: string | null;
  method: string | null;
}

/** A webhook whose signature did not verify (→ 400, nothing changes). */
export class ForgedWebhookError extends Error {}

/**
 * The provider answered that this refund will never be made (unknown payment, amount above what
 * was paid, a card that takes no refunds): retrying cannot help, support must act.
 */
export class RefundRefusedError extends Error {}

export interface PaymentProvider {
  readonly name: ProviderName;
  /** Checks the `Stripe-Signature` header over the raw body; throws ForgedWebhookError when it does not verify. */
  verifyWebhook(rawBody: string, signature: string | undefined): PaymentEvent;
  /**
   * Refunds a payment in full; `idempotencyKey` makes a repeated call refund once. Throws
   * RefundRefusedError when the provider refuses; any other error may pass on a retry.
   */
  refund(paymentId: string, amountCents: number, idempotencyKey: string): Promise<{ refundId: string }>;
  /** The order's succeeded payment as an event (the success page asks, so a lost webhook does not strand a payer). */
  findSucceededPayment(orderNumber: string): Promise<PaymentEvent | null>;
}

/** Maps a Stripe-format event object (both adapters send these) to a PaymentEvent. */
export function toPaymentEvent(event: { id: string; type: string; data: { object: Record<string, unknown> } }): PaymentEvent {
  const object = event.data.object;
  const isIntent = object.object === 'payment_intent';
  const metadata = (object.metadata ?? {}) as Record<string, string>;
  const types = (object.payment_method_types as string[] | undefined) ?? [];
  return {
    id: event.id,
    type: event.type,
    succeeded: event.type === 'payment_intent.succeeded' && isIntent,
    orderNumber: typeof metadata.order_number === 'string' ? metadata.order_number : null,
    paymentId: isIntent ? String(object.id) : null,
    amountCents:
      typeof object.amount_received === 'number' ? object.amount_received : typeof object.amount === 'number' ? object.amount : null,
    currency: typeof object.currency === 'string' ? object.currency.toUpperCase() : null,
    method: typeof metadata.method === 'string' ? metadata.method : (types[0] ?? null),
  };
}

/** The server's provider, or 503 `payments_unavailable` when it has none (PAYMENT_PROVIDER unset): Services.payments is null then. */
export function requireProvider<P extends PaymentProvider>(provider: P | null): P {
  if (!provider) {
    throw new AppError('payments_unavailable', 'Payments are not configured on this server (PAYMENT_PROVIDER and the Stripe keys).');
  }
  return provider;
}
