import type { OrderLineRow, OrderRow } from '../domain/orders/order-views.ts';
import type { PaymentAttempt, Refusal } from '../operations/checkout-attempts.ts';
import { listingText, productName } from '../operations/read-models/orders.ts';
import { time } from './components.ts';
import { html, type SafeHtml } from './html.ts';

/** The pay page's answers when it must not charge: a payment under way, or an order that cannot be delivered. */

/** Reloads the pay page (a GET) while an attempt charges, so the result shows by itself. */
export const RECHECK_SCRIPT = `setTimeout(function () { location.replace(document.getElementById('recheck').href); }, 2000);`;

/**
 * Another press of Pay (another tab, a double click) is charging this order, or waits for the
 * payer's step at the bank or wallet: nothing more is charged; the result shows once known.
 */
export function underWayBody(o: { order: OrderRow; base: string; attempt: PaymentAttempt }): SafeHtml {
  const step = o.attempt.state === 'action' && o.attempt.provider_payment_id;
  return html`<p role="status" data-under-way>This order's payment is under way: it was started at ${time(o.attempt.started_at)}, in this window or another one. Nothing more will be charged for order <strong>${o.order.number}</strong>.</p>
${
  step
    ? html`<p>The payment waits for you to confirm it with your bank or wallet. <a href="${o.base}/step/${step}">Continue the payment step</a></p>`
    : html`<p>This page shows the result as soon as it is known.</p>`
}
<p><a id="recheck" href="${o.base}">See how the payment stands</a></p>`;
}

/** Why the order cannot be paid (line by line), that nothing was charged, and what to do instead. */
export function cannotPayBody(o: { order: OrderRow; lines: OrderLineRow[]; refusals: Refusal[] }): SafeHtml {
  const lineOf = (position: number) => o.lines.find((l) => l.position === position);
  const listings = [...new Set(o.refusals.map((r) => r.listingId).filter((id): id is number => id !== null))];
  return html`<p role="alert" data-cannot-pay>Nothing was charged. Order <strong>${o.order.number}</strong> can no longer be paid, because something it sells cannot be delivered any more:</p>
<ul>${o.refusals.map((r) => {
    const line = lineOf(r.line);
    const what = line ? `${productName(line.product)}${line.listing_id !== null ? ` for ${listingText(line)}` : ''}` : 'An item';
    return html`<li data-refusal>${what}: ${sentence(r.reason)}</li>`;
  })}</ul>
<h2>What you can do</h2>
<ul>
${listings.map((id) => html`<li><a href="/account/listings/${id}/promote">Build a new order for this listing</a>: it offers only what can still be delivered.</li>`)}
<li>Or contact the site's support team and quote order ${o.order.number}.</li>
</ul>
<p class="muted">This checkout link expires by itself at ${time(o.order.expires_at)}; you need not do anything about it.</p>`;
}

/** "the listing … is unlisted" → "The listing … is unlisted." */
function sentence(reason: string): string {
  const text = reason.charAt(0).toUpperCase() + reason.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** The pay form's notice after a declined attempt seen from another tab (or a reload). */
export const declinedNotice = (attempt: PaymentAttempt | undefined): string | undefined =>
  attempt?.state === 'declined'
    ? `The last payment attempt was declined${attempt.message ? `: ${attempt.message}` : '.'} Nothing was charged; you can try again.`
    : undefined;
