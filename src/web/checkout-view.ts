import type { OrderLineRow, OrderRow } from '../domain/orders/order-views.ts';
import { formatCents } from '../domain/orders/receipt.ts';
import { errorSummary, field, postForm, time } from './components.ts';
import type { FieldMessages } from './forms.ts';
import { html, type SafeHtml } from './html.ts';

/** Building blocks of the pay page and the invoice: the order table and the two forms. */

const PRODUCT_NAMES: Record<string, string> = {
  launch: 'Paid launch',
  featured: 'Featured placement',
  categories: 'Category placement',
  billboard: 'Billboard',
  unlock_section: 'Unlocked listing section',
};

function describeOptions(line: OrderLineRow): string {
  const o = line.options;
  switch (line.product) {
    case 'launch':
      return o.week ? `week of ${o.week as string}` : 'live at once';
    case 'featured':
      return `${o.weeks as number} week(s)`;
    case 'categories':
      return (o.categories as string[]).join(', ');
    case 'billboard':
      return `${o.days as number} days from ${o.start_date as string}`;
    case 'unlock_section':
      return `section: ${o.section as string}`;
    default:
      return '';
  }
}

const TREATMENTS: Record<string, string> = {
  domestic: 'domestic VAT',
  eu_consumer: 'EU consumer VAT',
  reverse_charge: 'reverse charge',
  outside_eu: 'outside the EU',
};

/** Lines with net and VAT, then subtotal, discount, VAT (rate, treatment, note) and total. */
export function orderTable(order: OrderRow, lines: OrderLineRow[]): SafeHtml {
  const q = order.quote;
  const money = (c: number) => formatCents(c, order.currency);
  return html`<table class="order">
<caption class="visually-hidden">Order ${order.number}</caption>
<thead><tr><th scope="col">Item</th><th scope="col">Price</th><th scope="col">Discount</th><th scope="col">Net</th><th scope="col">VAT</th></tr></thead>
<tbody>${lines.map(
    (
      l,
    ) => html`<tr data-line="${l.position}"><td>${PRODUCT_NAMES[l.product] ?? l.product}<br><span class="muted">${describeOptions(l)}${l.listing_id ? ` · listing ${l.listing_id}` : ''}</span></td>
<td>${money(l.unit_cents)}</td><td>${l.discount_cents ? `−${money(l.discount_cents)}` : '—'}</td><td>${money(l.net_cents)}</td><td>${money(l.vat_cents)}</td></tr>`,
  )}</tbody>
<tfoot>
<tr><th scope="row" colspan="4">Subtotal</th><td>${money(q.subtotal_cents)}</td></tr>
${q.promo ? html`<tr><th scope="row" colspan="4">Promo code ${q.promo.code}</th><td>−${money(q.discount_cents)}</td></tr>` : ''}
<tr><th scope="row" colspan="4">Net</th><td>${money(q.net_cents)}</td></tr>
<tr><th scope="row" colspan="4">VAT ${(q.vat.rate_bp / 100).toFixed(2)} % (${q.vat.country}, ${TREATMENTS[q.vat.treatment] ?? q.vat.treatment})</th><td data-vat>${money(q.vat.amount_cents)}</td></tr>
<tr><th scope="row" colspan="4">Total</th><td data-total><strong>${money(q.total_cents)}</strong></td></tr>
</tfoot>
</table>
${q.vat.note ? html`<p class="muted" data-vat-note>${q.vat.note}</p>` : ''}`;
}

/** Billing name, country and optional VAT number; sending it re-prices the order. */
export function billingForm(action: string, csrf: string, order: OrderRow, errors: FieldMessages = {}): SafeHtml {
  return postForm(
    action,
    csrf,
    html`${field({ name: 'name', label: 'Billing name', value: order.billing.name ?? '', autocomplete: 'name', maxlength: 200, error: errors.name })}
${field({ name: 'country', label: 'Country', value: order.billing.country, autocomplete: 'country', hint: 'Two-letter code, e.g. IE, DE, US', maxlength: 2, required: true, error: errors.country })}
${field({ name: 'vat_number', label: 'VAT number (optional)', value: order.billing.vat_number ?? '', hint: 'EU businesses: your VAT number for reverse charge', maxlength: 20, error: errors.vat_number })}
<button type="submit" class="secondary">Update billing details</button>`,
  );
}

const METHODS = [
  ['card', 'Card'],
  ['wallet', 'Mobile wallet'],
  ['account', 'Payment account'],
  ['crypto', 'Crypto'],
] as const;

/** The method choice (clearly labelled radios) and the card fields of the test provider. */
export function payForm(action: string, csrf: string, order: OrderRow, errors: FieldMessages = {}, chosen = 'card'): SafeHtml {
  return postForm(
    action,
    csrf,
    html`<fieldset${errors.method ? html` aria-describedby="f-method-error"` : ''}><legend>Payment method</legend>
${errors.method ? html`<p class="error" id="f-method-error">${errors.method}</p>` : ''}
${METHODS.map(([value, label]) => html`<label class="check"><input type="radio" name="method" value="${value}"${value === chosen ? html` checked` : ''}> ${label}</label>`)}
</fieldset>
<fieldset><legend>Card details (for Card)</legend>
${field({ name: 'card_number', label: 'Card number', autocomplete: 'cc-number', maxlength: 23, error: errors.card_number })}
${field({ name: 'expiry', label: 'Expiry', hint: 'MM/YY', autocomplete: 'cc-exp', maxlength: 7, error: errors.expiry })}
${field({ name: 'cvc', label: 'CVC', autocomplete: 'cc-csc', maxlength: 4, error: errors.cvc })}
</fieldset>
<button type="submit">Pay ${formatCents(order.total_cents, order.currency)}</button>`,
  );
}

/** The whole pending pay page body. */
export function payPage(o: {
  order: OrderRow;
  lines: OrderLineRow[];
  base: string;
  csrf: string;
  errors?: FieldMessages;
  notice?: string;
  method?: string;
  /** The provider's own pay section (Stripe's Payment Element) instead of the test provider's form. */
  payment?: SafeHtml;
}): SafeHtml {
  return html`${o.notice ? html`<p class="notice" role="status" data-notice>${o.notice}</p>` : ''}
${errorSummary(o.errors)}
<p>Order <strong>${o.order.number}</strong> · this link is valid until ${time(o.order.expires_at)}.</p>
<h2>Your order</h2>
${orderTable(o.order, o.lines)}
<h2>Billing details</h2>
${billingForm(`${o.base}/billing`, o.csrf, o.order, o.errors)}
<h2>Pay</h2>
${o.payment ?? payForm(`${o.base}/pay`, o.csrf, o.order, o.errors, o.method)}`;
}
