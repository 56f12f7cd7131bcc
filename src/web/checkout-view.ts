import type { OrderLineRow, OrderRow } from '../domain/orders/order-views.ts';
import { formatCents, listingText, optionsText, productName, quantityText, TEST_CARDS } from '../operations/read-models/orders.ts';
import { errorSummary, field, postForm, time } from './components.ts';
import type { FieldMessages } from './forms.ts';
import { html, type SafeHtml } from './html.ts';

/** Building blocks of the pay page and the invoice: the order table and the pay form. */

const TREATMENTS: Record<string, string> = {
  domestic: 'domestic VAT',
  eu_consumer: 'EU consumer VAT',
  reverse_charge: 'reverse charge',
  outside_eu: 'outside the EU',
};

/** An amount that never breaks inside ("USD 49.0 / 0" at 390 px). */
const moneyCell = (text: string, label: string, attrs: SafeHtml = html``) =>
  html`<td class="money" data-label="${label}"${attrs}>${text}</td>`;

/** What an order table shows: the quote's totals and its lines (a quote's, or an order's as stored). */
export type TableQuote = Pick<OrderRow['quote'], 'subtotal_cents' | 'discount_cents' | 'net_cents' | 'vat' | 'total_cents' | 'promo'>;
export type TableLine = Pick<
  OrderLineRow,
  | 'product'
  | 'listing_id'
  | 'listing_name'
  | 'options'
  | 'unit'
  | 'quantity'
  | 'unit_price_cents'
  | 'discount_cents'
  | 'net_cents'
  | 'vat_cents'
>;

/**
 * Lines (the listing by name, "4 weeks × USD 99.00", discount, net, VAT), then subtotal,
 * discount, VAT (rate, treatment, note) and total. Stacks into labelled rows on narrow screens.
 */
export function orderTable(order: OrderRow, lines: OrderLineRow[]): SafeHtml {
  return quoteTable(order.quote, lines, `Order ${order.number}`, order.currency);
}

/** The order table of a quote not saved yet (the promote page's review) or of an order. */
export function quoteTable(q: TableQuote, lines: TableLine[], caption: string, currency = 'USD'): SafeHtml {
  const money = (c: number) => formatCents(c, currency);
  const total = (label: SafeHtml | string, value: SafeHtml | string, attrs: SafeHtml = html``) =>
    html`<tr><th scope="row" colspan="4">${label}</th><td class="money"${attrs}>${value}</td></tr>`;
  return html`<table class="order stack">
<caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">Item</th><th scope="col">Price</th><th scope="col">Discount</th><th scope="col">Net</th><th scope="col">VAT</th></tr></thead>
<tbody>${lines.map(
    (
      l,
      i,
    ) => html`<tr data-line="${i + 1}"><td data-label="Item">${productName(l.product)}${l.listing_id !== null ? html` for <strong data-listing-name>${listingText(l)}</strong>` : ''}<br><span class="muted">${optionsText(l)}</span></td>
<td data-label="Price" data-unit-price><span class="money">${quantityText(l)}</span> × <span class="money">${money(l.unit_price_cents)}</span></td>
${moneyCell(l.discount_cents ? `−${money(l.discount_cents)}` : '—', 'Discount')}${moneyCell(money(l.net_cents), 'Net')}${moneyCell(money(l.vat_cents), 'VAT')}</tr>`,
  )}</tbody>
<tfoot>
${total('Subtotal', money(q.subtotal_cents))}
${q.promo ? total(`Promo code ${q.promo.code}`, `−${money(q.discount_cents)}`) : ''}
${total('Net', money(q.net_cents))}
${total(`VAT ${(q.vat.rate_bp / 100).toFixed(2)} % (${q.vat.country}, ${TREATMENTS[q.vat.treatment] ?? q.vat.treatment})`, money(q.vat.amount_cents), html` data-vat`)}
${total('Total', html`<strong>${money(q.total_cents)}</strong>`, html` data-total`)}
</tfoot>
</table>
${q.vat.note ? html`<p class="muted" data-vat-note>${q.vat.note}</p>` : ''}`;
}

/** What the pay form shows in its fields: the order's billing details, or what was typed. */
export interface PayFormValues {
  name: string;
  country: string;
  vat_number: string;
  method: string;
  card_number: string;
  expiry: string;
  cvc: string;
}

/** The fields as first shown: the billing details saved on the order, the card method. */
export const valuesOf = (order: OrderRow): PayFormValues => ({
  name: order.billing.name ?? '',
  country: order.billing.country,
  vat_number: order.billing.vat_number ?? '',
  method: 'card',
  card_number: '',
  expiry: '',
  cvc: '',
});

/** Billing name, country and optional VAT number (the country and VAT number price the order). */
function billingFields(v: PayFormValues, errors: FieldMessages): SafeHtml {
  return html`<fieldset><legend>Billing details</legend>
${field({ name: 'name', label: 'Billing name', value: v.name, autocomplete: 'name', maxlength: 200, hint: 'The person or company named on the invoice', error: errors.name })}
${field({ name: 'country', label: 'Country', value: v.country, autocomplete: 'country', hint: 'Two-letter code, e.g. IE, DE, US', maxlength: 2, required: true, error: errors.country })}
${field({ name: 'vat_number', label: 'VAT number (optional)', value: v.vat_number, hint: 'EU businesses: your VAT number for reverse charge', maxlength: 20, error: errors.vat_number })}
</fieldset>`;
}

const METHODS = [
  ['card', 'Card'],
  ['wallet', 'Mobile wallet'],
  ['account', 'Payment account'],
  ['crypto', 'Crypto'],
] as const;

/** The method choice (clearly labelled radios) and the card fields of the test provider. */
function paymentFields(v: PayFormValues, errors: FieldMessages): SafeHtml {
  return html`<fieldset${errors.method ? html` aria-describedby="f-method-error"` : ''}><legend>Payment method</legend>
${errors.method ? html`<p class="error" id="f-method-error">${errors.method}</p>` : ''}
${METHODS.map(([value, label]) => html`<label class="check"><input type="radio" name="method" value="${value}"${value === v.method ? html` checked` : ''}> ${label}</label>`)}
</fieldset>
<fieldset><legend>Card details (for Card)</legend>
${testCards()}
${field({ name: 'card_number', label: 'Card number', value: v.card_number, autocomplete: 'cc-number', maxlength: 23, error: errors.card_number })}
${field({ name: 'expiry', label: 'Expiry', value: v.expiry, hint: 'MM/YY', autocomplete: 'cc-exp', maxlength: 7, error: errors.expiry })}
${field({ name: 'cvc', label: 'CVC', value: v.cvc, autocomplete: 'cc-csc', maxlength: 4, error: errors.cvc })}
</fieldset>`;
}

/** The test provider moves no money: its form says so and lists the card numbers to try. */
const testCards =
  () => html`<div class="notice" data-test-mode><p><strong>Test mode:</strong> no real money moves. Pay with one of these card numbers, any future expiry date such as 12/34 and any three digits as CVC:</p>
<ul data-test-cards>${TEST_CARDS.map((c) => html`<li data-test-card="${c.outcome}"><span class="money">${c.number}</span>: ${c.result}</li>`)}</ul></div>`;

/**
 * The whole pending pay page body. With the test provider it is one form: billing details and
 * payment are sent together, so nothing typed is lost, and a changed country or VAT number
 * shows the new total before anything is charged. Stripe's Payment Element confirms in the
 * browser, so there the billing details are saved by their own form first.
 */
export function payPage(o: {
  order: OrderRow;
  lines: OrderLineRow[];
  base: string;
  csrf: string;
  values: PayFormValues;
  errors?: FieldMessages;
  notice?: string;
  /** How much of this week is left, for orders with lines that cover weeks. */
  weekLeft?: string | null;
  /** The provider's own pay section (Stripe's Payment Element) instead of the test provider's form. */
  payment?: SafeHtml;
}): SafeHtml {
  const errors = o.errors ?? {};
  const pay = html`<button type="submit">Pay ${formatCents(o.order.total_cents, o.order.currency)}</button>`;
  return html`${o.notice ? html`<p class="notice" role="status" data-notice>${o.notice}</p>` : ''}
${errorSummary(o.errors)}
<p>Order <strong>${o.order.number}</strong> · this link is valid until ${time(o.order.expires_at)}.</p>
<h2>Your order</h2>
${orderTable(o.order, o.lines)}
${o.weekLeft ? html`<p data-week-left>${o.weekLeft}</p>` : ''}
<h2>Billing and payment</h2>
${
  o.payment
    ? html`${postForm(`${o.base}/billing`, o.csrf, html`${billingFields(o.values, errors)}<button type="submit" class="secondary">Save billing details</button>`)}
${o.payment}`
    : postForm(`${o.base}/pay`, o.csrf, html`${billingFields(o.values, errors)}${paymentFields(o.values, errors)}${pay}`)
}`;
}
