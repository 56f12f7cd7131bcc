import type { OrderConfig } from '../../config/orders.ts';
import { RefundRefusedError, toPaymentEvent, type PaymentProvider } from '../../domain/orders/payment-port.ts';
import { verifySignedEvent } from '../signature.ts';
import { stripeSdk } from '../stripe-sdk.ts';

export interface StripePayments {
  /** The PaymentIntent for an order's total (provider idempotency key `order:{number}`): its client secret for the Payment Element. */
  paymentIntent(order: { number: string; amountCents: number; currency: string }): Promise<{ id: string; clientSecret: string }>;
  readonly publishableKey: string;
}

/** The `stripe` adapter over the official SDK; host/port/protocol point it at a fake in tests. */
export function createStripeProvider(options: NonNullable<OrderConfig['stripe']>): PaymentProvider & StripePayments {
  const Stripe = stripeSdk();
  const stripe = new Stripe(options.secretKey, {
    host: options.host,
    port: options.port,
    protocol: options.protocol,
    maxNetworkRetries: 2,
    timeout: 20_000,
  });
  return {
    name: 'stripe',
    publishableKey: options.publishableKey,
    verifyWebhook: (raw, signature) => toPaymentEvent(verifySignedEvent(raw, signature, options.webhookSecret)),
    async refund(paymentId, amountCents, idempotencyKey) {
      try {
        const refund = await stripe.refunds.create({ payment_intent: paymentId, amount: amountCents }, { idempotencyKey });
        return { refundId: refund.id };
      } catch (err) {
        // 4xx answers (no such payment, amount above the charge, already refunded) stay the same
        // however often they are asked; network errors, 5xx and rate limits may pass later.
        if (err instanceof Stripe.errors.StripeInvalidRequestError || err instanceof Stripe.errors.StripeCardError)
          throw new RefundRefusedError(err.message);
        throw err;
      }
    },
    async findSucceededPayment(orderNumber) {
      const found = await stripe.paymentIntents.search({
        query: `metadata['order_number']:'${orderNumber}' AND status:'succeeded'`,
        limit: 1,
      });
      const intent = found.data[0];
      if (!intent) return null;
      // Not a webhook: a lookup event id of its own; the workflow dedupes by the payment id.
      return toPaymentEvent({
        id: `lookup_${intent.id}`,
        type: 'payment_intent.succeeded',
        data: { object: intent as unknown as Record<string, unknown> },
      });
    },
    async paymentIntent(order) {
      const intent = await stripe.paymentIntents.create(
        {
          amount: order.amountCents,
          currency: order.currency.toLowerCase(),
          automatic_payment_methods: { enabled: true },
          metadata: { order_number: order.number },
        },
        { idempotencyKey: `order:${order.number}` },
      );
      return { id: intent.id, clientSecret: intent.client_secret ?? '' };
    },
  };
}
