import type { z } from 'zod';
import { formatCents, productName } from '../../../operations/read-models/orders.ts';
import type { staffGetCatalogueSettingsOp } from '../../../operations/staff-catalogue-settings.ts';
import type { staffListProductsOp } from '../../../operations/staff-catalogue.ts';
import type { staffListPromoCodesOp } from '../../../operations/staff-promo-codes.ts';
import { attr, labelled, postForm, time } from '../../components.ts';
import type { FieldMessages } from '../../forms.ts';
import { html, type SafeHtml } from '../../html.ts';

/** The catalogue page's parts: products and prices, promo codes, paid slots and the seller on invoices. */

export const CATALOGUE_PATH = '/staff/catalogue';

export type StaffProduct = z.output<typeof staffListProductsOp.output>['items'][number];
export type StaffPromo = z.output<typeof staffListPromoCodesOp.output>['items'][number];
export type CatalogueSettings = z.output<typeof staffGetCatalogueSettingsOp.output>;

const UNIT_WORDS: Record<string, string> = { week: 'per week', day: 'per day', category: 'per category', item: 'each' };

/** "USD 99.00 per week". */
export const priceWords = (p: Pick<StaffProduct, 'unit'>, cents: number) => `${formatCents(cents)} ${UNIT_WORDS[p.unit] ?? 'each'}`;

/** Cents as the dollars a form shows ("99.00"). */
export const dollars = (cents: number | null) => (cents === null ? '' : (cents / 100).toFixed(2));

/** What the page's forms sent back and why they were refused, to show them again. */
export interface Shown {
  status?: number;
  errors?: FieldMessages;
  values?: Record<string, string>;
}

const errorOf = (shown: Shown, name: string) => shown.errors?.[name];

interface InputOptions {
  value?: string;
  hint?: string;
  type?: string;
  inputmode?: string;
  /** The name the form sends, when several forms share it (the id and error stay `name`'s). */
  sends?: string;
}

function textInput(name: string, label: string, shown: Shown, o: InputOptions = {}) {
  const error = errorOf(shown, name);
  return labelled(
    { name, label, error, hint: o.hint },
    (id, described) =>
      html`<input id="${id}" name="${o.sends ?? name}" type="${o.type ?? 'text'}" value="${shown.values?.[name] ?? o.value ?? ''}"${attr('inputmode', o.inputmode)}${attr('aria-describedby', described)}${error ? html` aria-invalid="true"` : ''}>`,
  );
}

export function productsSection(products: StaffProduct[], token: string, shown: Shown): SafeHtml {
  return html`<section aria-labelledby="products"><h2 id="products">Products and prices</h2>
<p>Prices are in US dollars for one unit, before VAT. A new price counts for every quote and checkout from then on; orders already made keep theirs.</p>
<table class="stack"><thead><tr><th scope="col">Product</th><th scope="col">Price</th><th scope="col">On sale</th><th scope="col">Change the price</th></tr></thead>
<tbody>${products.map((p) => productRow(p, token, shown))}</tbody></table></section>`;
}

function productRow(p: StaffProduct, token: string, shown: Shown): SafeHtml {
  const name = `price-${p.key}`;
  const onSale = postForm(
    `${CATALOGUE_PATH}/products/${p.key}/active`,
    token,
    html`<input type="hidden" name="active" value="${p.active ? 'false' : 'true'}"><button type="submit" class="secondary">${p.active ? `Take ${p.name} off sale` : `Put ${p.name} on sale`}</button>`,
  );
  const price = postForm(
    `${CATALOGUE_PATH}/products/${p.key}/price`,
    token,
    html`${textInput(name, `New price of ${p.name} in dollars (${UNIT_WORDS[p.unit] ?? 'each'})`, shown, { value: dollars(p.price_cents), inputmode: 'decimal', sends: 'price' })}<button type="submit">Change the price…</button>`,
  );
  return html`<tr data-product="${p.key}"><td data-label="Product">${p.name}</td><td data-label="Price" class="money" data-price>${priceWords(p, p.price_cents)}</td><td data-label="On sale">${p.active ? 'Yes' : 'No'} ${onSale}</td><td data-label="Change the price">${price}</td></tr>`;
}

export function promosSection(promos: StaffPromo[], products: StaffProduct[], token: string, shown: Shown): SafeHtml {
  return html`<section aria-labelledby="promos"><h2 id="promos">Promo codes</h2>
${promos.length ? promoTable(promos, token) : html`<p>No promo codes yet.</p>`}
<h3 id="new-promo">New promo code</h3>
${postForm(
  `${CATALOGUE_PATH}/promo-codes`,
  token,
  html`${textInput('code', 'Code', shown, { hint: '3 to 40 letters, digits, - or _. Buyers may type it in any case.' })}
${textInput('percent', 'Percent off', shown, { hint: 'Give a percent off or an amount off, not both.', inputmode: 'decimal' })}
${textInput('amount', 'Amount off in dollars', shown, { inputmode: 'decimal' })}
${textInput('starts', 'Valid from (UTC, from the start of the day)', shown, { type: 'date', hint: 'Empty: at once.' })}
${textInput('expires', 'Valid until (UTC, to the end of the day)', shown, { type: 'date', hint: 'Empty: no end.' })}
${textInput('max_redemptions', 'Uses in all', shown, { hint: 'Empty: no limit.', inputmode: 'numeric' })}
${textInput('per_account', 'Uses per account', shown, { hint: 'Empty: no limit.', inputmode: 'numeric' })}
${textInput('min_net', 'Minimum order in dollars', shown, { hint: 'Of the products it applies to. Empty: none.', inputmode: 'decimal' })}
<fieldset><legend>Applies to</legend><p class="hint">None ticked: every product.</p>
${products.map((p) => html`<div><input type="checkbox" id="f-products-${p.key}" name="products" value="${p.key}"${shown.values?.[`products-${p.key}`] ? html` checked` : ''}> <label for="f-products-${p.key}">${p.name}</label></div>`)}</fieldset>
<div><input type="checkbox" id="f-first_order_only" name="first_order_only" value="yes"${shown.values?.first_order_only ? html` checked` : ''}> <label for="f-first_order_only">First orders only</label></div>
<button type="submit">Create the promo code</button>`,
  'promo-form',
)}</section>`;
}

function promoTable(promos: StaffPromo[], token: string): SafeHtml {
  return html`<table class="stack"><thead><tr><th scope="col">Code</th><th scope="col">Takes off</th><th scope="col">Valid</th><th scope="col">Uses</th><th scope="col">Status</th></tr></thead>
<tbody>${promos.map(
    (p) =>
      html`<tr data-promo="${p.code}"><td data-label="Code"><code>${p.code}</code></td><td data-label="Takes off">${offWords(p)}</td><td data-label="Valid">${validWords(p)}</td><td data-label="Uses" data-uses>${p.counted} paid, ${p.reserved} held by unpaid checkouts${p.max_redemptions === null ? '' : ` (at most ${p.max_redemptions})`}${usesList(p)}</td><td data-label="Status">${
        p.disabled_at
          ? html`Disabled ${time(p.disabled_at)}`
          : postForm(
              `${CATALOGUE_PATH}/promo-codes/${encodeURIComponent(p.code)}/disable`,
              token,
              html`Enabled <button type="submit" class="secondary">Disable ${p.code}</button>`,
            )
      }</td></tr>`,
  )}</tbody></table>`;
}

function offWords(p: StaffPromo): string {
  const off = p.percent !== null ? `${p.percent}% off` : `${formatCents(p.amount_cents ?? 0)} off`;
  const on = p.products ? ` ${p.products.map(productName).join(', ')}` : '';
  const rules = [
    p.first_order_only ? 'first orders only' : '',
    p.per_account !== null ? `${p.per_account} per account` : '',
    p.min_net_cents !== null ? `from ${formatCents(p.min_net_cents)}` : '',
  ].filter(Boolean);
  return `${off}${on}${rules.length ? ` (${rules.join(', ')})` : ''}`;
}

const validWords = (p: StaffPromo): SafeHtml =>
  p.starts_at || p.expires_at ? html`from ${time(p.starts_at, 'now')} until ${time(p.expires_at, 'no end')}` : html`Always`;

function usesList(p: StaffPromo): SafeHtml {
  if (!p.redemptions.length) return html``;
  return html`<details><summary>Who used it</summary><ul>${p.redemptions.map(
    (r) =>
      html`<li data-use>${r.email}, order <a href="/staff/orders/${r.order_number}">${r.order_number}</a>, ${time(r.at)}${r.state === 'reserved' ? ' (not paid yet)' : ''}</li>`,
  )}</ul></details>`;
}

export const SETTING_WORDS = {
  paid_slots_per_week: 'Paid launches per week',
  seller_name: 'Seller’s legal name on invoices',
  seller_address: 'Seller’s address on invoices',
  seller_vat_id: 'Seller’s VAT ID on invoices',
} as const;
export type SettingName = keyof typeof SETTING_WORDS;

export function settingsSection(s: CatalogueSettings, token: string, shown: Shown): SafeHtml {
  const current = (name: SettingName) => (name === 'paid_slots_per_week' ? String(s[name]) : (s[name] ?? ''));
  return html`<section aria-labelledby="settings"><h2 id="settings">Paid launches and invoices</h2>
${s.missing_for_invoices.length ? html`<p class="notice" data-missing>Invoices still lack the seller’s ${s.missing_for_invoices.map((m) => m.replace('seller_', '').replace('_', ' ')).join(', ')}: real payments wait for them.</p>` : ''}
${postForm(
  `${CATALOGUE_PATH}/settings`,
  token,
  html`${textInput('paid_slots_per_week', SETTING_WORDS.paid_slots_per_week, shown, { value: current('paid_slots_per_week'), inputmode: 'numeric', hint: 'Launches already sold stay.' })}
${textInput('seller_name', SETTING_WORDS.seller_name, shown, { value: current('seller_name'), hint: 'Empty: the site’s name.' })}
${labelled(
  { name: 'seller_address', label: SETTING_WORDS.seller_address, error: errorOf(shown, 'seller_address') },
  (id, described) =>
    html`<textarea id="${id}" name="seller_address" rows="3"${attr('aria-describedby', described)}>${shown.values?.seller_address ?? current('seller_address')}</textarea>`,
)}
${textInput('seller_vat_id', SETTING_WORDS.seller_vat_id, shown, { value: current('seller_vat_id'), hint: `Checked for the seller’s country (${s.seller_country || 'not set'}).` })}
<button type="submit">Change these settings…</button>`,
  'settings-form',
)}</section>`;
}
