import type { Context } from 'koa';
import type { OrderRow } from '../../domain/orders/order-views.ts';
import { AppError } from '../../errors/errors.ts';
import {
  confirmWithProvider,
  decideTestPayment,
  payWithTestProvider,
  stripeCheckout,
  testPayment,
  TEST_METHODS,
  type TestMethod,
  type TestPaymentResult,
} from '../../operations/checkout-payments.ts';
import {
  beginPayment,
  paymentStanding,
  releasePayment,
  resumePayment,
  settlePayment,
  type PaymentAttempt,
  type Refusal,
} from '../../operations/checkout-attempts.ts';
import { checkoutOrder, formatCents, orderLines } from '../../operations/read-models/orders.ts';
import { weekLeftNotice } from '../../operations/read-models/placements.ts';
import { cannotPayBody, declinedNotice, RECHECK_SCRIPT, underWayBody } from '../checkout-attempt-view.ts';
import { money, priceBilling, typedValues } from '../checkout-billing.ts';
import { payPage, valuesOf, type PayFormValues } from '../checkout-view.ts';
import { postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { formBody, formString, type FieldMessages } from '../forms.ts';
import { html } from '../html.ts';
import { pageContext } from '../invoke.ts';
import { renderPage } from '../render.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';

/**
 * The pay page `/checkout/{token}`: the unguessable link is the authority (no session needed).
 * Review, then one form of billing details and payment; billing details are priced by the one
 * pricing function before anything is charged.
 */
export const checkoutPages: PageRoutes = (router, services) => {
  router.get('/checkout/{token}', async function showCheckout(ctx) {
    const c = await pageContext(ctx, services);
    const order = await checkoutOrder(c, ctx.params.token!, { allowClosed: true });
    if (order.status !== 'pending') return ctx.redirect(`/checkout/${ctx.params.token}/done`);
    // What the order sells is checked before the pay form is offered (Stripe's form charges in the browser).
    const standing = await paymentStanding(c, order);
    if (standing.kind === 'paid') return ctx.redirect(`/checkout/${ctx.params.token}/done`);
    if (standing.kind === 'under_way') return renderUnderWay(ctx, services, order, standing.attempt, 200);
    if (standing.refusals.length) return renderCannotPay(ctx, services, order, standing.refusals, 200);
    await renderPay(ctx, services, order, { notice: declinedNotice(standing.last) });
  });

  // Stripe's Payment Element confirms in the browser: there the billing details are saved first, here.
  router.post('/checkout/{token}/billing', async function updateBilling(ctx) {
    const c = await pageContext(ctx, services);
    const order = await checkoutOrder(c, ctx.params.token!);
    const typed = typedValues(formBody(ctx));
    const billing = await priceBilling(c, order, typed);
    if (!billing.ok) return renderPay(ctx, services, order, { values: typed, errors: billing.errors, status: billing.status });
    const { order: repriced, notice } = billing;
    await renderPay(ctx, services, repriced, {
      values: typed,
      notice: notice ?? `Billing details saved. The total is ${money(repriced)}.`,
    });
  });

  router.post('/checkout/{token}/pay', async function pay(ctx) {
    const c = await pageContext(ctx, services);
    const order = await checkoutOrder(c, ctx.params.token!, { allowClosed: true });
    const done = `/checkout/${ctx.params.token}/done`;
    // Paid already (another tab, a second press): the result, never a second charge.
    if (order.status !== 'pending') return ctx.redirect(done);
    const body = formBody(ctx);
    const typed = typedValues(body);
    const method = typed.method as TestMethod;
    if (!TEST_METHODS.includes(method))
      return renderPay(ctx, services, order, { values: typed, errors: { method: 'Choose a payment method' }, status: 400 });
    // One attempt of an order at a time, and only for what can still be delivered.
    const start = await beginPayment(c, order);
    if (start.kind === 'paid') return ctx.redirect(done);
    if (start.kind === 'under_way') return renderUnderWay(ctx, services, order, start.attempt, 409);
    if (start.kind === 'undeliverable') return renderCannotPay(ctx, services, order, start.reasons, 409);
    const { attempt } = start;
    let charging = false;
    try {
      // Billing details and the promo code are priced again before anything is charged; a changed total is shown first.
      const billing = await priceBilling(c, order, typed);
      if (!billing.ok)
        return await released(renderPay(ctx, services, order, { values: typed, errors: billing.errors, status: billing.status }));
      const { order: current, notice } = billing;
      if (notice) return await released(renderPay(ctx, services, current, { values: typed, notice, status: 409 }));
      const card = { number: typed.card_number, expiry: typed.expiry, cvc: typed.cvc };
      if (method === 'card') {
        const missing = cardErrors(card);
        if (Object.keys(missing).length)
          return await released(renderPay(ctx, services, current, { values: typed, errors: missing, status: 400 }));
      }
      // From here the provider may have the money: a failure leaves the attempt open until it is stale (then the provider is asked).
      charging = true;
      const result = await payWithTestProvider(c, current, method, card);
      await settlePayment(c, attempt, result);
      await afterPayment(ctx, services, current, typed, result);
    } catch (err) {
      if (!charging) await releasePayment(c, attempt);
      throw err;
    }

    /** Closes the attempt (nothing was charged) once the page that must be seen first is rendered. */
    async function released(page: Promise<void>) {
      charging = true;
      await releasePayment(c, attempt);
      await page;
    }
  });

  router.get('/checkout/{token}/step/{payment}', async function showStep(ctx) {
    const c = await pageContext(ctx, services);
    const order = await checkoutOrder(c, ctx.params.token!);
    const payment = await testPayment(c, ctx.params.payment!);
    if (!payment || payment.order_number !== order.number) throw new AppError('not_found', 'There is no such payment step.');
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

  router.post('/checkout/{token}/step/{payment}', async function decideStep(ctx) {
    const c = await pageContext(ctx, services);
    const order = await checkoutOrder(c, ctx.params.token!);
    const approve = formString(formBody(ctx), 'decision') === 'approve';
    // Only the step of the order's open attempt, once: an abandoned attempt's step charges nothing.
    const attempt = await resumePayment(c, order, ctx.params.payment!);
    if (!attempt) {
      return renderPay(ctx, services, order, {
        errors: {
          form: 'This payment step is no longer open, so nothing was charged by it. Check the order and pay again if you still want it.',
        },
        status: 409,
      });
    }
    const result = await decideTestPayment(c, ctx.params.payment!, order.number, approve);
    await settlePayment(c, attempt, result);
    const payment = await testPayment(c, ctx.params.payment!);
    await afterPayment(ctx, services, order, { ...valuesOf(order), method: payment?.method ?? 'card' }, result);
  });

  router.get('/checkout/{token}/done', async function showDone(ctx) {
    const c = await pageContext(ctx, services);
    let order = await checkoutOrder(c, ctx.params.token!, { allowClosed: true });
    // The success page also asks the provider, so a lost webhook does not strand a payer.
    if (order.status === 'pending') order = await confirmWithProvider(c, order);
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

async function renderUnderWay(ctx: Context, services: WebServices, order: OrderRow, attempt: PaymentAttempt, status: number) {
  const base = `/checkout/${order.checkout_token}`;
  await renderPage(ctx, services, {
    title: 'Payment under way',
    status,
    main: underWayBody({ order, base, attempt }),
    script: attempt.state === 'charging' ? RECHECK_SCRIPT : undefined,
  });
}

async function renderCannotPay(ctx: Context, services: WebServices, order: OrderRow, refusals: Refusal[], status: number) {
  const lines = await orderLines(await pageContext(ctx, services), order.id);
  await renderPage(ctx, services, { title: 'This order cannot be paid', status, main: cannotPayBody({ order, lines, refusals }) });
}

async function renderPay(
  ctx: Context,
  services: WebServices,
  order: OrderRow,
  o: { values?: PayFormValues; errors?: FieldMessages; notice?: string; status?: number },
): Promise<void> {
  const c = await pageContext(ctx, services);
  const lines = await orderLines(c, order.id);
  const csrf = await csrfToken(ctx, services);
  const base = `/checkout/${order.checkout_token}`;
  const checkout = await stripeCheckout(c, order);
  const stripe = checkout ? stripePayment(ctx, checkout, order) : null;
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
      weekLeft: weekLeftNotice(c, lines),
      payment: stripe?.element,
    }),
    script: stripe?.script,
    external: stripe?.external,
  });
}

/**
 * With the stripe provider the pay section is Stripe's Payment Element (cards, wallets through
 * Express Checkout, PayPal/Link accounts, crypto) for a PaymentIntent of the order's total; the
 * page's CSP then also allows Stripe.js and its frames.
 */
function stripePayment(ctx: Context, intent: { clientSecret: string; publishableKey: string }, order: OrderRow) {
  const done = `${ctx.origin}/checkout/${order.checkout_token}/done`;
  return {
    element: html`<form id="stripe-payment" data-client-secret="${intent.clientSecret}" data-publishable-key="${intent.publishableKey}" data-return-url="${done}">
<div id="payment-element"></div>
<button type="submit">Pay ${money(order)}</button>
<p class="error" id="payment-error" role="alert"></p>
</form>`,
    script: STRIPE_SCRIPT,
    external: STRIPE_SOURCES,
  };
}

/** Stripe.js, the frames of its Payment Element and its API. */
const STRIPE_SOURCES = {
  script: ['https://js.stripe.com'],
  frame: ['https://js.stripe.com', 'https://hooks.stripe.com'],
  connect: ['https://api.stripe.com'],
};

// Loads Stripe.js, mounts the Payment Element and confirms; Stripe redirects to the done page.
const STRIPE_SCRIPT = `(function () {
  var form = document.getElementById('stripe-payment');
  var s = document.createElement('script');
  s.src = 'https://js.stripe.com/v3/';
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
