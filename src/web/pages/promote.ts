import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import type { z } from 'zod';
import type { LaunchWeek } from '../../domain/launches/launch-weeks.ts';
import { AppError, notFound, type FieldError } from '../../errors/errors.ts';
import { listLaunchWeeksOp } from '../../operations/launches.ts';
import { getMyListingOp } from '../../operations/listings.ts';
import { createCheckoutOp, quoteOrderOp } from '../../operations/orders.ts';
import type { QuoteWithWeek } from '../../operations/order-schemas.ts';
import { listProductsOp } from '../../operations/public.ts';
import { firstFreeBillboardDate, startWeeksOf, weekLeftNotice, type StartWeeks } from '../../operations/read-models/placements.ts';
import { displayName } from '../../operations/read-models/display-names.ts';
import { formatCents } from '../../operations/read-models/orders.ts';
import { quoteTable } from '../checkout-view.ts';
import { attr, errorSummary, field, labelled, postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { formBody, formString, type FieldMessages } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage, pageContext } from '../invoke.ts';
import { renderPage } from '../render.ts';
import { requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import { dayText, durationText, weekText } from '../week-words.ts';
import type { PageRoutes } from './page-routes.ts';

/**
 * `/account/listings/{id}/promote`: what the site sells for a listing (list_products), an input
 * per option built from each product's published options schema, billing country, VAT number
 * and promo code. "Review order" prices it (quote_order); "Continue to payment" builds the order
 * (create_checkout) from exactly the reviewed fields and goes to its pay page.
 */

type Product = z.output<typeof listProductsOp.output>['items'][number];
type QuoteInput = z.input<typeof quoteOrderOp.input>;

/** A property of a product's options schema (JSON Schema, as list_products publishes it). */
interface OptionSchema {
  type?: string;
  enum?: string[];
  items?: { enum?: string[] };
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  description?: string;
}

const promotePath = (id: number) => `/account/listings/${id}/promote`;

/** What the page needs besides the form: the listing, the products, the weeks, the first free billboard date, the placements' start weeks. */
interface Offer {
  listing: { id: number; name: string };
  products: Product[];
  weeks: LaunchWeek[];
  billboardFrom: string;
  starts: StartWeeks;
}

/** The form as typed: every field a string or a list of strings. */
type Values = Record<string, string | string[]>;

export const promotePages: PageRoutes = (router, services) => {
  router.get('/account/listings/{listing_id}/promote', requireUser(services), async function showPromote(ctx) {
    const offer = await offerOf(ctx, services);
    await promotePage(ctx, services, offer, { values: {} });
  });

  router.post('/account/listings/{listing_id}/promote', requireUser(services), async function reviewOrder(ctx) {
    const offer = await offerOf(ctx, services);
    const values = typedValues(formBody(ctx));
    const built = orderInput(offer, values);
    if (!built.ok) return promotePage(ctx, services, offer, { values, errors: built.errors, status: 400 });
    try {
      const quote = await invokeForPage(ctx, services, quoteOrderOp, built.input);
      await promotePage(ctx, services, offer, { values, quote });
    } catch (err) {
      const { status, errors } = refused(err, offer, built.input);
      await promotePage(ctx, services, offer, { values, errors, status });
    }
  });

  router.post('/account/listings/{listing_id}/promote/checkout', requireUser(services), async function continueToPayment(ctx) {
    const offer = await offerOf(ctx, services);
    const values = typedValues(formBody(ctx));
    const built = orderInput(offer, values);
    if (!built.ok) return promotePage(ctx, services, offer, { values, errors: built.errors, status: 400 });
    // The review's one-time key: pressing Continue twice (or again after Back) builds one order.
    const key = formString(formBody(ctx), 'checkout_key');
    const idempotencyKey = /^[A-Za-z0-9-]{16,64}$/.test(key) ? key : undefined;
    let order: { number: string; checkout_url: string | null };
    try {
      order = await invokeForPage(ctx, services, createCheckoutOp, built.input, { idempotencyKey });
    } catch (err) {
      if (err instanceof AppError && err.code === 'idempotency_in_flight') {
        const errors = { form: 'This order is being built already. Find it among your orders in a moment.' };
        return promotePage(ctx, services, offer, { values, errors, status: 409 });
      }
      const { status, errors } = refused(err, offer, built.input);
      return promotePage(ctx, services, offer, { values, errors, status });
    }
    ctx.status = 303;
    // The pay page of this site (the absolute link is the API's; the person stays on this host);
    // an order already paid from an earlier press shows its own page.
    ctx.redirect(order.checkout_url ? new URL(order.checkout_url).pathname : `/account/orders/${order.number}`);
  });
};

/** The listing id of the path; anything but a positive 32-bit integer is a page that does not exist. */
function listingIdOf(ctx: Context): number {
  const raw = ctx.params.listing_id!;
  if (!/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) throw notFound('The listing');
  return Number(raw);
}

async function offerOf(ctx: Context, services: WebServices): Promise<Offer> {
  // Another owner's listing is "not found", as through the API.
  const listing = await invokeForPage(ctx, services, getMyListingOp, { listing_id: listingIdOf(ctx) });
  const page = await pageContext(ctx, services);
  const [products, weeks, billboardFrom] = await Promise.all([
    invokeForPage(ctx, services, listProductsOp, {}),
    invokeForPage(ctx, services, listLaunchWeeksOp, {}),
    firstFreeBillboardDate(page),
  ]);
  const starts = startWeeksOf(page, { status: listing.status, launch_week: listing.launch_week_start });
  return { listing: { id: listing.id, name: listing.name }, products: products.items, weeks: weeks.items, billboardFrom, starts };
}

/** The form's fields as strings (absent ones empty), lists for the repeated ones; the CSRF token left out. */
function typedValues(body: Record<string, unknown>): Values {
  const values: Values = {};
  for (const [name, value] of Object.entries(body)) {
    if (name === '_csrf' || name === 'checkout_key') continue;
    if (typeof value === 'string') values[name] = value;
    else if (Array.isArray(value)) values[name] = value.filter((v): v is string => typeof v === 'string');
  }
  return values;
}

const one = (values: Values, name: string): string => {
  const v = values[name];
  return typeof v === 'string' ? v : '';
};
const many = (values: Values, name: string): string[] => {
  const v = values[name];
  return v === undefined ? [] : [v].flat();
};

/** The form field of an option: `featured-weeks`, `billboard-start_date`. */
const optionField = (product: string, option: string) => `${product}-${option}`;

const propertiesOf = (p: Product): [string, OptionSchema][] =>
  Object.entries(((p.options as { properties?: Record<string, OptionSchema> }).properties ?? {}) as Record<string, OptionSchema>);

const UNIT_WORDS: Record<string, [string, string]> = {
  week: ['week', 'weeks'],
  day: ['day', 'days'],
  category: ['category', 'categories'],
  item: ['item', 'items'],
};

/**
 * The quote_order input of the form, or messages beside the fields for what the form itself can
 * tell (nothing chosen, a product not sold here, a number that is not a whole number in range).
 * Everything else is the operation's to refuse.
 */
function orderInput(offer: Offer, values: Values): { ok: true; input: QuoteInput } | { ok: false; errors: FieldMessages } {
  const errors: FieldMessages = {};
  const chosen = many(values, 'products');
  const byKey = new Map(offer.products.map((p) => [p.key, p]));
  const unknown = chosen.filter((key) => !byKey.has(key));
  if (unknown.length) errors.form = `This site does not sell “${unknown.join('”, “')}”. Choose from the products below.`;
  else if (!chosen.length) errors.form = 'Choose at least one thing to buy.';
  const items: QuoteInput['items'] = [];
  for (const key of new Set(chosen)) {
    const product = byKey.get(key);
    if (!product) continue;
    const options: Record<string, unknown> = {};
    for (const [name, schema] of propertiesOf(product)) {
      const fieldName = optionField(key, name);
      if (schema.type === 'array') {
        const picked = many(values, fieldName);
        if (picked.length) options[name] = picked;
        continue;
      }
      const raw = one(values, fieldName).trim();
      if (!raw) continue;
      if (schema.type === 'integer') {
        const n = /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
        const [low, high] = [schema.minimum ?? 1, schema.maximum ?? 999_999];
        if (!Number.isInteger(n) || n < low || n > high) {
          const unit = UNIT_WORDS[product.unit]?.[1] ?? '';
          errors[fieldName] = `${product.name}: enter a whole number from ${low} to ${high}${unit ? ` (${unit})` : ''}.`;
        } else options[name] = n;
        continue;
      }
      options[name] = raw;
    }
    items.push({
      product: key as QuoteInput['items'][number]['product'],
      ...(product.needs_listing ? { listing_id: offer.listing.id } : {}),
      options,
    });
  }
  const country = one(values, 'billing_country').trim();
  if (!country) errors.billing_country = 'Enter the country you are billed in, as two letters such as IE or US.';
  if (Object.keys(errors).length) return { ok: false, errors };
  const vat = one(values, 'vat_number').trim();
  const promo = one(values, 'promo_code').trim();
  return {
    ok: true,
    input: { items, billing_country: country, ...(vat ? { vat_number: vat } : {}), ...(promo ? { promo_code: promo } : {}) },
  };
}

/**
 * A refusal of quote_order / create_checkout as sentences beside the fields: `items.{i}.options.{o}`
 * is the option's input, `items.{i}` the product's checkbox; billing fields keep their names.
 * Not found (another's listing) and server errors go on to the error page.
 */
function refused(err: unknown, offer: Offer, input: QuoteInput): { status: number; errors: FieldMessages } {
  if (!(err instanceof AppError) || err.status >= 500 || err.status === 404) throw err;
  const errors: FieldMessages = {};
  const add = (name: string, message: string) => {
    errors[name] = errors[name] ? `${errors[name]} ${message}` : message;
  };
  const list: FieldError[] = err.errors?.length ? err.errors : [{ path: 'form', message: err.message }];
  for (const { path, message } of list) {
    const item = /^items\.(\d+)(?:\.options\.([a-z_]+))?/.exec(path);
    const key = item ? input.items[Number(item[1])]?.product : undefined;
    const product = key ? offer.products.find((p) => p.key === key) : undefined;
    if (key && product) add(item![2] ? optionField(key, item![2]) : `product-${key}`, `${product.name}: ${sentence(message)}`);
    else if (['billing_country', 'vat_number', 'promo_code'].includes(path)) add(path, sentence(message));
    else add('form', sentence(message));
  }
  return { status: err.status, errors };
}

/** A message as a sentence: capital first letter, a full stop at the end. */
function sentence(message: string): string {
  const text = message.trim();
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

async function promotePage(
  ctx: Context,
  services: WebServices,
  offer: Offer,
  o: { values: Values; errors?: FieldMessages; quote?: z.output<typeof QuoteWithWeek>; status?: number },
): Promise<void> {
  const token = await csrfToken(ctx, services);
  const errors = o.errors ?? {};
  const action = promotePath(offer.listing.id);
  await renderPage(ctx, services, {
    title: `Promote ${offer.listing.name}`,
    status: o.status,
    main: html`${errorSummary(o.errors)}
${o.quote ? review(offer, o.values, o.quote, token, weekLeftNotice(await pageContext(ctx, services), o.quote.lines)) : ''}
<p>Choose what to buy for <strong>${offer.listing.name}</strong>. Prices are in US dollars before VAT; the VAT of your country is added on review.</p>
${offer.starts.window.short ? html`<p class="notice" data-week-left>${offer.starts.notice} Placements start next week unless you choose this week.</p>` : ''}
${postForm(
  action,
  token,
  html`${offer.products.map((p) => productFieldset(p, offer, o.values, errors))}
${billingFieldset(o.values, errors)}
<button type="submit">Review order</button>`,
)}
<p><a href="/account/listings/${offer.listing.id}">Back to the listing</a> · <a href="/account/orders?listing=${offer.listing.id}">Orders for this listing</a></p>`,
  });
}

/** The quote and "Continue to payment": a form of hidden fields, so that what was reviewed is what is bought. */
function review(offer: Offer, values: Values, quote: z.output<typeof QuoteWithWeek>, token: string, weekLeft: string | null): SafeHtml {
  const hidden = Object.entries(values).flatMap(([name, value]) =>
    [value].flat().map((v) => html`<input type="hidden" name="${name}" value="${v}">`),
  );
  return html`<section aria-labelledby="review-title" class="review" data-quote>
<h2 id="review-title">Review your order</h2>
${quoteTable(quote, quote.lines, `Your order for ${offer.listing.name}`, quote.currency)}
${weekLeft ? html`<p data-week-left>${weekLeft}</p>` : ''}
<p>You pay <strong data-quote-total>${formatCents(quote.total_cents, quote.currency)}</strong> on the next page, by card or another method. Nothing is charged yet.</p>
${postForm(
  `${promotePath(offer.listing.id)}/checkout`,
  token,
  html`${hidden}<input type="hidden" name="checkout_key" value="${randomUUID()}"><button type="submit">Continue to payment</button>`,
)}
<p class="hint">To change the order, change the fields below and review it again.</p>
</section>`;
}

function productFieldset(p: Product, offer: Offer, values: Values, errors: FieldMessages): SafeHtml {
  const chosen = many(values, 'products').includes(p.key);
  const [one_, many_] = UNIT_WORDS[p.unit] ?? ['item', 'items'];
  const price = p.unit === 'item' ? formatCents(p.price_cents, p.currency) : `${formatCents(p.price_cents, p.currency)} a ${one_}`;
  const checkboxId = `f-product-${p.key}`;
  const error = errors[`product-${p.key}`];
  return html`<fieldset class="product" data-product="${p.key}">
<legend>${p.name} <span class="money" data-price>${price}</span></legend>
<p class="hint">${p.description}${p.unit !== 'item' ? ` Priced per ${one_}: the total is the number of ${many_} × the price.` : ''}</p>
${error ? html`<p class="error" id="${checkboxId}-error">${error}</p>` : ''}
<label class="check" for="${checkboxId}"><input type="checkbox" id="${checkboxId}" name="products" value="${p.key}"${chosen ? html` checked` : ''}${error ? html` aria-describedby="${checkboxId}-error" aria-invalid="true"` : ''}> Add ${p.name.toLowerCase()} to the order</label>
${propertiesOf(p).map(([name, schema]) => optionInput(p, name, schema, offer, values, errors))}
</fieldset>`;
}

/** One option's input, from its schema: a list of weeks, a date, checkboxes, a choice, a number or text. */
function optionInput(p: Product, name: string, schema: OptionSchema, offer: Offer, values: Values, errors: FieldMessages): SafeHtml {
  const fieldName = optionField(p.key, name);
  const id = `f-${fieldName}`;
  const error = errors[fieldName];
  const typed = one(values, fieldName);
  const invalid = error ? html` aria-invalid="true"` : '';
  if (name === 'week') {
    return labelled(
      {
        name: fieldName,
        label: 'Launch week',
        hint: 'Launches go live on Monday at 00:00 UTC. Weeks without a paid place left cannot be chosen.',
        error,
      },
      (fid, described) => html`<select id="${fid}" name="${fieldName}"${attr('aria-describedby', described)}${invalid}>
<option value="">${offer.starts.window.short ? `As soon as possible (this week, which ends in ${durationText(offer.starts.window.ms_left)})` : 'As soon as possible (this week)'}</option>
${offer.weeks
  .filter((w) => w.state === 'open' || w.state === 'full')
  .map((w) => {
    const left = Math.max(0, w.paid_slots - w.paid_taken);
    const room = left === 0 ? 'no paid places left' : left === 1 ? '1 paid place left' : `${left} paid places left`;
    // On a short week the next one is chosen unless the founder picks this one.
    const selected = typed ? typed === w.week : offer.starts.window.short && w.week_start === offer.starts.window.next && left > 0;
    return html`<option value="${w.week}"${selected ? html` selected` : ''}${left === 0 ? html` disabled` : ''} data-week="${w.week}">${weekText(w.week_start)} — ${room}</option>`;
  })}
</select>`,
    );
  }
  if (name === 'start_week') return startWeekInput(fieldName, offer.starts, typed, error, invalid);
  if (name === 'start_date') {
    return labelled(
      { name: fieldName, label: 'First day on the billboard', hint: `The first free date is ${dayText(offer.billboardFrom)}.`, error },
      (fid, described) =>
        html`<input type="date" id="${fid}" name="${fieldName}" value="${typed || offer.billboardFrom}" min="${offer.billboardFrom}"${attr('aria-describedby', described)}${invalid}>`,
    );
  }
  if (schema.type === 'array') {
    const picked = many(values, fieldName);
    const options = schema.items?.enum ?? [];
    return html`<fieldset class="choices" id="${id}"${error ? html` aria-describedby="${id}-error"` : ''}>
<legend>${optionLabel(name)}${schema.minItems !== undefined && schema.maxItems !== undefined ? html` <span class="hint">(choose ${schema.minItems} to ${schema.maxItems})</span>` : ''}</legend>
${error ? html`<p class="error" id="${id}-error">${error}</p>` : ''}
${options.map((v) => html`<label class="check"><input type="checkbox" name="${fieldName}" value="${v}"${picked.includes(v) ? html` checked` : ''}> ${valueName(name, v)}</label>`)}
</fieldset>`;
  }
  if (schema.enum) {
    return labelled(
      { name: fieldName, label: optionLabel(name), error },
      (fid, described) => html`<select id="${fid}" name="${fieldName}"${attr('aria-describedby', described)}${invalid}>
${schema.enum!.map((v) => html`<option value="${v}"${typed === v ? html` selected` : ''}>${valueName(name, v)}</option>`)}
</select>`,
    );
  }
  if (schema.type === 'integer') {
    const value = typed || (schema.default !== undefined ? String(schema.default as number) : String(schema.minimum ?? 1));
    const hint = schema.minimum !== undefined && schema.maximum !== undefined ? `From ${schema.minimum} to ${schema.maximum}.` : undefined;
    return labelled(
      { name: fieldName, label: optionLabel(name), hint, error },
      (fid, described) =>
        html`<input type="number" inputmode="numeric" id="${fid}" name="${fieldName}" value="${value}"${attr('min', schema.minimum)}${attr('max', schema.maximum)}${attr('aria-describedby', described)}${invalid}>`,
    );
  }
  return field({ name: fieldName, label: optionLabel(name), value: typed, error, hint: schema.description });
}

/** The weeks a placement can start in: the first week the listing is live and the twelve after it. */
function startWeekInput(
  fieldName: string,
  starts: StartWeeks,
  typed: string,
  error: string | undefined,
  invalid: SafeHtml | string,
): SafeHtml {
  const hint = starts.first
    ? 'A placement shows only while the listing is live: it can start in the listing’s first live week or later.'
    : 'The listing has no launch week yet: buy a paid launch with it, and the placement starts in the launch week.';
  const chosen = typed || starts.default_start || '';
  return labelled({ name: fieldName, label: 'First week', hint, error }, (fid, described) =>
    starts.first
      ? html`<select id="${fid}" name="${fieldName}"${attr('aria-describedby', described)}${invalid}>
${starts.choices.map(
  (w) =>
    html`<option value="${w.week_start}"${chosen === w.week_start ? html` selected` : ''} data-start-week="${w.week_start}">${weekText(w.week_start)}${w.short ? ` — ends in ${durationText(starts.window.ms_left)}` : ''}</option>`,
)}
</select>`
      : html`<select id="${fid}" name="${fieldName}"${attr('aria-describedby', described)}${invalid}>
<option value="">The week of the paid launch</option>
</select>`,
  );
}

const OPTION_LABELS: Record<string, string> = {
  weeks: 'Number of weeks',
  days: 'Number of days',
  categories: 'Categories',
  section: 'Section to unlock',
};

const optionLabel = (name: string) => OPTION_LABELS[name] ?? words(name);

/** An option's value as people read it: categories and sections by their display names. */
const valueName = (option: string, value: string) =>
  option === 'categories' ? displayName('category', value) : option === 'section' ? displayName('section', value) : words(value);

/** `developer-tools` → `Developer tools`. */
const words = (slug: string) => {
  const text = slug.replace(/[-_]+/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
};

function billingFieldset(values: Values, errors: FieldMessages): SafeHtml {
  return html`<fieldset><legend>Billing</legend>
${field({ name: 'billing_country', label: 'Billing country', value: one(values, 'billing_country'), autocomplete: 'country', maxlength: 2, hint: 'Two letters, e.g. IE, DE, US', error: errors.billing_country })}
${field({ name: 'vat_number', label: 'VAT number (optional)', value: one(values, 'vat_number'), maxlength: 20, hint: 'EU businesses: your VAT number, for the reverse charge', error: errors.vat_number })}
${field({ name: 'promo_code', label: 'Promo code (optional)', value: one(values, 'promo_code'), maxlength: 64, error: errors.promo_code })}
</fieldset>`;
}
