import type { OrderRow } from '../domain/orders/order-views.ts';
import { takePaymentEvent } from '../domain/orders/payment-intake.ts';
import { repriceOrder, type BillingInput, type Repriced } from '../domain/orders/reprice.ts';
import { requireSellerForPayments } from '../domain/sites/seller.ts';
import { AppError } from '../errors/errors.ts';
import { requirePayments, type ConfiguredProvider } from '../payments/index.ts';
import type { TestMethod, TestPaymentResult, TestPayments } from '../payments/test-provider/index.ts';
import type { OperationContext } from './operation.ts';

/**
 * Paying an order on its hosted checkout page is a person's step (orders are paid on our own
 * checkout page; create_checkout returns its link), so these are deliberately not in the
 * registry: no REST route, no MCP tool. The pay page calls them with the page's context; the
 * checkout link's token is the authority (checkoutOrder in read-models/orders.ts), not a session.
 */

export { TEST_METHODS, type TestMethod, type TestPaymentResult } from '../payments/test-provider/index.ts';

type CardDetails = NonNullable<Parameters<TestPayments['pay']>[2]>;
type TestPaymentRow = NonNullable<Awaited<ReturnType<TestPayments['payment']>>>;

/** The configured payment provider (503 payments_unavailable when none is); the one place this layer asks for it. */
const providerOf = (c: Pick<OperationContext, 'payments'>): ConfiguredProvider => requirePayments(c.payments);

/**
 * Saves the billing details on the pending order and prices it again with the one pricing
 * function, re-checking its promo code for the caller's address (refusals as repriceOrder's).
 */
export function repriceWithBilling(
  c: Pick<OperationContext, 'db' | 'config' | 'clientIp' | 'clock'>,
  order: OrderRow,
  billing: BillingInput,
): Promise<Repriced> {
  return repriceOrder(c.db, c.config, order, billing, c.clientIp, c.clock.now());
}

/**
 * What the pay section needs of the provider: null for the test provider (the page's own form),
 * for Stripe a PaymentIntent of the order's total (its client secret) and the publishable key
 * for the Payment Element.
 */
export async function stripeCheckout(
  c: Pick<OperationContext, 'db' | 'config' | 'payments'>,
  order: OrderRow,
): Promise<{ clientSecret: string; publishableKey: string } | null> {
  const provider = providerOf(c);
  if (provider.name !== 'stripe') return null;
  // An order made before its site's seller details were cleared still takes no real money.
  await requireSellerForPayments(c.db, provider.name, order.site_id);
  const intent = await provider.paymentIntent({ number: order.number, amountCents: order.total_cents, currency: order.currency });
  return { clientSecret: intent.clientSecret, publishableKey: provider.publishableKey };
}

/** The test provider's own steps (Stripe's page does these itself); with another provider the step pages are 404s. */
function testPayments(c: Pick<OperationContext, 'payments'>) {
  const provider = providerOf(c);
  if (provider.name !== 'test') throw new AppError('not_found', 'This payment step belongs to the test provider.');
  return provider;
}

/** Pays the order's total with the test provider: succeeded, declined, or a step to take first. */
export function payWithTestProvider(
  c: Pick<OperationContext, 'db' | 'config' | 'payments'>,
  order: OrderRow,
  method: TestMethod,
  card: CardDetails,
): Promise<TestPaymentResult> {
  return testPayments(c).pay({ number: order.number, amountCents: order.total_cents, currency: order.currency }, method, card);
}

/** A payment of the test provider (its step page), or undefined. */
export function testPayment(
  c: Pick<OperationContext, 'db' | 'config' | 'payments'>,
  paymentId: string,
): Promise<TestPaymentRow | undefined> {
  return testPayments(c).payment(paymentId);
}

/** The person approves or declines the test provider's step (3-D Secure, wallet or account approval). */
export function decideTestPayment(
  c: Pick<OperationContext, 'db' | 'config' | 'payments'>,
  paymentId: string,
  orderNumber: string,
  approve: boolean,
): Promise<TestPaymentResult> {
  return testPayments(c).decide(paymentId, orderNumber, approve);
}

/**
 * The success page also asks the provider, so a lost webhook does not strand a payer: a
 * succeeded payment found there is taken like its webhook, then the order is read again for up
 * to two seconds while the workflow marks it paid. Returns the order as it then stands.
 */
export async function confirmWithProvider(
  c: Pick<OperationContext, 'db' | 'config' | 'workflows' | 'payments'>,
  order: OrderRow,
): Promise<OrderRow> {
  if (!(await takeSucceededPayment(c, order))) return order;
  for (let i = 0; i < 20; i++) {
    const current = (await c.db('orders').where({ id: order.id }).first())!;
    if (current.status !== 'pending') return current;
    await new Promise((r) => setTimeout(r, 100));
  }
  return order;
}

/**
 * Asks the provider for the order's succeeded payment and takes it like its webhook; the
 * provider's payment id, or null when it has none.
 */
export async function takeSucceededPayment(
  c: Pick<OperationContext, 'db' | 'config' | 'workflows' | 'payments'>,
  order: Pick<OrderRow, 'number'>,
): Promise<string | null> {
  const provider = providerOf(c);
  const event = await provider.findSucceededPayment(order.number);
  if (!event) return null;
  await takePaymentEvent(c, provider.name, event, { id: event.id, type: event.type, data: { object: lookupObject(event) } });
  return event.paymentId ?? event.id;
}

/** The found payment as the Stripe-format object a webhook would carry (stored with the event). */
const lookupObject = (e: {
  paymentId: string | null;
  amountCents: number | null;
  currency: string | null;
  orderNumber: string | null;
  method: string | null;
}) => ({
  id: e.paymentId,
  object: 'payment_intent',
  amount: e.amountCents,
  amount_received: e.amountCents,
  currency: e.currency?.toLowerCase(),
  metadata: { order_number: e.orderNumber, method: e.method },
});
