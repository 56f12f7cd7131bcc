import type { Context } from 'koa';
import { linesOf, type OrderRow } from '../../domain/orders/order-views.ts';
import { takePaymentEvent } from '../../domain/orders/payment-intake.ts';
import { formatCents } from '../../domain/orders/line-text.ts';
import { AppError } from '../../errors.ts';
import { requirePayments } from '../../payments/index.ts';
import type { StripePayments } from '../../payments/stripe/index.ts';
import { TEST_METHODS, type TestMethod, type TestPaymentResult } from '../../payments/test-provider/index.ts';
import { money, priceBilling, typedValues } from '../checkout-billing.ts';
import { payPage, valuesOf, type PayFormValues } from '../checkout-view.ts';
import { postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { formBody, formString, type FieldMessages } from '../forms.ts';
import { html } from '../html.ts';
import { renderPage } from '../render.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The pay page `/checkout/{token}`: the unguessable link is the authority (no session needed).
 * Review, then one form of billing details and payment; billing details are priced by the one
 * pricing function before anything is charged.
 */
export const checkoutPages: PageRoutes = (router, services) => {
  router.get('/checkout/:token', async function showCheckout(ctx) {
    const order = await payableOrder(services, ctx.params.token!, { allowClosed: true });
    if (order.status !== 'pending') return ctx.redirect(`/checkout/${ctx.params.token}/done`);
    await renderPay(ctx, services, order, {});
  });

  // Stripe's Payment Element confirms in the browser: there the billing details are saved first, here.
  router.post('/checkout/:token/billing', async function updateBilling(ctx) {
    const order = await payableOrder(services, ctx.params.token!);
    const typed = typedValues(formBody(ctx));
    const billing = await priceBilling(services, order, typed, ctx.ip);
    if (!billing.ok) return renderPay(ctx, services, order, { values: typed, errors: billing.errors, status: billing.status });
    const { order: repriced, notice } = billing;
    await renderPay(ctx, services, repriced, {
      values: typed,
      notice: notice ?? `Billing details saved. The total is ${money(repriced)}.`,
    });
  });

  router.post('/checkout/:token/pay', async function pay(ctx) {
    const order = await payableOrder(services, ctx.params.token!);
    const body = formBody(ctx);
    const typed = typedValues(body);
    const method = typed.method as TestMethod;
    if (!TEST_METHODS.includes(method))
      return renderPay(ctx, services, order, { values: typed, errors: { method: 'Choose a payment method' }, status: 400 });
    // Billing details and the promo code are priced again before anything is charged; a changed total is shown first.
    const billing = await priceBilling(services, order, typed, ctx.ip);
    if (!billing.ok) return renderPay(ctx, services, order, { values: typed, errors: billing.errors, status: billing.status });
    const { order: current, notice } = billing;
    if (notice) return renderPay(ctx, services, current, { values: typed, notice, status: 409 });
    const card = { number: typed.card_number, expiry: typed.expiry, cvc: typed.cvc };
    if (method === 'card') {
      const missing = cardErrors(card);
      if (Object.keys(missing).length) return renderPay(ctx, services, current, { values: typed, errors: missing, status: 400 });
    }
    const result = await testPayments(services).pay(
      { number: current.number, amountCents: current.total_cents, currency: current.currency },
      method,
      card,
    );
    await afterPayment(ctx, services, current, typed, result);
  });

  router.get('/checkout/:token/step/:payment', async function showStep(ctx) {
    const order = await payableOrder(services, ctx.params.token!);
    const payment = await testPayments(services).payment(ctx.params.payment!);
    if (!payment || payment.order_number !== order.number)
      throw new AppError(404, 'not_found', 'Page not found', 'There is no such payment step.');
    const csrf = await csrfToken(ctx, services);
    const card = payment.method === 'card';
    const action = `/checkout/${ctx.params.token}/step/${payment.id}`;
    await renderPage(ctx, services, {
      title: card ? 'Authenticate your payment' : 'Approve your payment',
      main: html`<p>${card ? 'Your bank asks you to confirm this card payment' : `Your ${payment.method === 'wallet' ? 'mobile wallet' : 'payment account'} asks you to approve this payment`} of <strong>${formatCents(payment.amount_cents, payment.currency)}</strong> to order ${order.number}.</p>
${postForm(action, csrf, html`<input type="hidden" name="decision" value="approve"><button type="submit">${card ? 'Complete authentication' : 'Approve payment'}</button>`, 'inline')}
${postForm(action, csrf, html`<input type="hidden" name="decision" value="decline"><button type="submit" class="secondary">${card ? 'Fail authentication' : 'Decline payment'}</button>`, 'inline')}`,
    });
  });

  router.post('/checkout/:token/step/:payment', async function decideStep(ctx) {
    const order = await payableOrder(services, ctx.params.token!);
    const approve = formString(formBody(ctx), 'decision') === 'approve';
    const result = await testPayments(services).decide(ctx.params.payment!, order.number, approve);
    const payment = await testPayments(services).payment(ctx.params.payment!);
    await afterPayment(ctx, services, order, { ...valuesOf(order), method: payment?.method ?? 'card' }, result);
  });

  router.get('/checkout/:token/done', async function showDone(ctx) {
    let order = await payableOrder(services, ctx.params.token!, { allowClosed: true });
    if (order.status === 'pending') order = await askProvider(services, order);
    const processing = order.status === 'pending';
    await renderPage(ctx, services, {
      title: processing ? 'Payment processing' : order.status === 'expired' ? 'This checkout has expired' : 'Thank you, payment received',
      main: html`<p data-order-status="${order.status}">Order <strong>${order.number}</strong>: ${STATUS_TEXT[order.status] ?? order.status}.</p>
${processing ? html`<p>This page refreshes by itself until the payment is confirmed.</p>` : ''}
<p><a href="/account/orders/${order.number}">See the order in your account</a></p>`,
      script: processing ? 'setTimeout(function () { location.reload(); }, 1500);' : undefined,
    });
  });
};

const STATUS_TEXT: Record<string, string> = {
  pending: 'the payment is being confirmed',
  paid: 'paid; we are fulfilling it now',
  fulfilled: 'paid and fulfilled',
  attention: 'paid; our support team is looking at it',
  expired: 'the checkout link expired before payment',
  canceled: 'canceled',
  refunded: 'refunded',
};

function cardErrors(card: { number: string; expiry: string; cvc: string }): FieldMessages {
  const errors: FieldMessages = {};
  if (!card.number.trim()) errors.card_number = 'Enter the card number';
  if (!card.expiry.trim()) errors.expiry = 'Enter the expiry date (MM/YY)';
  if (!card.cvc.trim()) errors.cvc = 'Enter the CVC';
  return errors;
}

function testPayments(services: WebServices) {
  const provider = requirePayments(services.payments);
  if (provider.name !== 'test') throw new AppError(404, 'not_found', 'Page not found', 'This payment step belongs to the test provider.');
  return provider;
}

async function afterPayment(
  ctx: Context,
  services: WebServices,
  order: OrderRow,
  values: PayFormValues,
  result: TestPaymentResult,
): Promise<void> {
  const base = `/checkout/${order.checkout_token}`;
  if (result.status === 'succeeded' || result.status === 'processing') return ctx.redirect(`${base}/done`);
  if (result.status === 'requires_action' || result.status === 'awaiting_approval') return ctx.redirect(`${base}/step/${result.paymentId}`);
  // Declined: the order stays pending and the person can try again.
  await renderPay(ctx, services, order, { values, errors: { form: result.message ?? 'The payment was declined.' }, status: 402 });
}

/** The success page also asks the provider, so a lost webhook does not strand a payer. */
async function askProvider(services: WebServices, order: OrderRow): Promise<OrderRow> {
  const provider = requirePayments(services.payments);
  const event = await provider.findSucceededPayment(order.number);
  if (!event) return order;
  await takePaymentEvent(services, provider.name, event, { id: event.id, type: event.type, data: { object: lookupObject(event) } });
  for (let i = 0; i < 20; i++) {
    const current = (await services.db('orders').where({ id: order.id }).first()) as OrderRow;
    if (current.status !== 'pending') return current;
    await new Promise((r) => setTimeout(r, 100));
  }
  return order;
}

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

async function payableOrder(services: WebServices, token: string, o: { allowClosed?: boolean } = {}): Promise<OrderRow> {
  const order = TOKEN.test(token)
    ? ((await services.db('orders').where({ checkout_token: token }).first()) as OrderRow | undefined)
    : undefined;
  if (!order) throw new AppError(404, 'not_found', 'Page not found', 'There is no checkout at this address.');
  const expired = order.status === 'expired' || (order.status === 'pending' && order.expires_at <= new Date());
  if (expired)
    throw new AppError(410, 'checkout_expired', 'This checkout has expired', 'Nothing was charged. Ask for a new checkout link.');
  if (!o.allowClosed && order.status !== 'pending')
    throw new AppError(409, 'order_not_pending', 'Already paid', 'This order is no longer waiting for payment.');
  return order;
}

async function renderPay(
  ctx: Context,
  services: WebServices,
  order: OrderRow,
  o: { values?: PayFormValues; errors?: FieldMessages; notice?: string; status?: number },
): Promise<void> {
  const lines = (await linesOf(services.db, [order.id])).get(order.id)!;
  const csrf = await csrfToken(ctx, services);
  const provider = requirePayments(services.payments);
  const base = `/checkout/${order.checkout_token}`;
  const stripe = provider.name === 'stripe' ? await stripePayment(ctx, provider, order) : null;
  await renderPage(ctx, services, {
    title: 'Checkout',
    status: o.status,
    main: payPage({
      order,
      lines,
      base,
      csrf,
      values: o.values ?? valuesOf(order),
      errors: o.errors,
      notice: o.notice,
      payment: stripe?.element,
    }),
    script: stripe?.script,
  });
}

/**
 * With the stripe provider the pay section is Stripe's Payment Element (cards, wallets through
 * Express Checkout, PayPal/Link accounts, crypto) for a PaymentIntent of the order's total; the
 * page's CSP then also allows Stripe.js and its frames.
 */
async function stripePayment(ctx: Context, provider: StripePayments, order: OrderRow) {
  const intent = await provider.paymentIntent({ number: order.number, amountCents: order.total_cents, currency: order.currency });
  const csp = ctx.response
    .get('Content-Security-Policy')
    .replace("script-src 'nonce-", "script-src https://js.stripe.com 'nonce-")
    .replace(
      "default-src 'self'",
      "default-src 'self'; frame-src https://js.stripe.com https://hooks.stripe.com; connect-src 'self' https://api.stripe.com",
    );
  ctx.set('Content-Security-Policy', csp);
  const done = `${ctx.origin}/checkout/${order.checkout_token}/done`;
  return {
    element: html`<form id="stripe-payment" data-client-secret="${intent.clientSecret}" data-publishable-key="${provider.publishableKey}" data-return-url="${done}">
<div id="payment-element"></div>
<button type="submit">Pay ${money(order)}</button>
<p class="error" id="payment-error" role="alert"></p>
</form>`,
    script: STRIPE_SCRIPT,
  };
}

// Loads Stripe.js, mounts the Payment Element and confirms; Stripe redirects to the done page.
const STRIPE_SCRIPT = `(function () {
  var form = document.getElementById('stripe-payment');
  var s = document.createElement('script');
  s.src = 'https://js.stripe.com/v3/';
  s.nonce = document.currentScript.nonce;
  s.onload = function () {
    var stripe = Stripe(form.dataset.publishableKey);
    var elements = stripe.elements({ clientSecret: form.dataset.clientSecret });
    elements.create('payment').mount('#payment-element');
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      stripe.confirmPayment({ elements: elements, confirmParams: { return_url: form.dataset.returnUrl } }).then(function (r) {
        if (r.error) document.getElementById('payment-error').textContent = r.error.message;
      });
    });
  };
  document.head.appendChild(s);
})();`;
