import type { Context } from 'koa';
import type { z } from 'zod';
import { formatCents } from '../../../operations/read-models/orders.ts';
import { staffSearchOrdersOp } from '../../../operations/staff-orders.ts';
import { errorSummary, time } from '../../components.ts';
import { html, type SafeHtml } from '../../html.ts';
import { invokeForPage } from '../../invoke.ts';
import { refusal } from '../../owner-forms.ts';
import { renderPage } from '../../render.ts';
import type { PageRoutes } from '../page-routes.ts';
import { requireStaff } from './access.ts';

export const ORDERS_PATH = '/staff/orders';

/** An order's status in words, for the site team. */
export const STATUS_WORDS: Record<string, string> = {
  pending: 'Waiting for payment',
  paid: 'Paid, not fulfilled yet',
  fulfilled: 'Paid and fulfilled',
  attention: 'Paid, needs a person',
  expired: 'Expired unpaid',
  canceled: 'Canceled',
  refunded: 'Refunded',
};

const FIELDS = ['number', 'email', 'listing', 'status', 'from', 'to'] as const;
type Query = Partial<Record<(typeof FIELDS)[number], string>>;

/** Order search: a GET form (the address can be shared among the team) and its results. */
export const staffOrderSearchPages: PageRoutes = (router, services) => {
  router.get(ORDERS_PATH, requireStaff(services, ['admin', 'support']), async function searchOrders(ctx) {
    const q = queryOf(ctx);
    // A number names one order: its page is the answer.
    if (q.number) {
      ctx.status = 303;
      return ctx.redirect(`${ORDERS_PATH}/${encodeURIComponent(q.number.trim().toUpperCase())}`);
    }
    const searched = FIELDS.some((f) => q[f]);
    let results: SafeHtml = html``;
    let errors: Record<string, string> | undefined;
    let status = 200;
    if (searched) {
      try {
        const { number: _n, ...filters } = q;
        const { items } = await invokeForPage(ctx, services, staffSearchOrdersOp, { ...filters, limit: 50 });
        results = resultsTable(items);
      } catch (err) {
        ({ status, errors } = refusal(err));
      }
    }
    await renderPage(ctx, services, {
      title: 'Find an order',
      status,
      main: html`<p><a href="/staff">Site team</a></p>${errorSummary(errors)}${searchForm(q)}${results}`,
    });
  });
};

function queryOf(ctx: Context): Query {
  const q: Query = {};
  for (const f of FIELDS) {
    const v = ctx.query[f];
    if (typeof v === 'string' && v.trim()) q[f] = v.trim().slice(0, 254);
  }
  return q;
}

const input = (name: string, label: string, value: string | undefined, type = 'text', extra: SafeHtml = html``) =>
  html`<div class="field"><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" type="${type}" value="${value ?? ''}"${extra}></div>`;

function searchForm(q: Query): SafeHtml {
  return html`<form method="get" action="${ORDERS_PATH}" class="staff-search" role="search" aria-label="Find orders">
${input('number', 'Order number', q.number, 'text', html` autocomplete="off"`)}
${input('email', 'Buyer’s email', q.email, 'email', html` autocomplete="off"`)}
${input('listing', 'Listing (its number or web address name)', q.listing)}
<div class="field"><label for="f-status">Status</label><select id="f-status" name="status"><option value="">Any status</option>${Object.entries(STATUS_WORDS).map(([v, words]) => html`<option value="${v}"${q.status === v ? html` selected` : ''}>${words}</option>`)}</select></div>
${input('from', 'Made on or after', q.from, 'date')}
${input('to', 'Made on or before', q.to, 'date')}
<button type="submit">Find orders</button>
</form>`;
}

type Found = z.output<typeof staffSearchOrdersOp.output>['items'][number];

function resultsTable(items: Found[]): SafeHtml {
  if (!items.length) return html`<p role="status" data-results="0">No orders match.</p>`;
  return html`<h2 role="status" data-results="${items.length}">${items.length === 1 ? '1 order' : `${items.length} orders`} (newest first)</h2>
<table class="stack"><thead><tr><th scope="col">Order</th><th scope="col">Buyer</th><th scope="col">For</th><th scope="col">Status</th><th scope="col">Total</th><th scope="col">Made</th></tr></thead>
<tbody>${items.map(
    (o) =>
      html`<tr data-order="${o.number}"><td data-label="Order"><a href="${ORDERS_PATH}/${o.number}">${o.number}</a></td><td data-label="Buyer">${o.email}</td><td data-label="For">${o.listings.join(', ') || '—'}</td><td data-label="Status">${STATUS_WORDS[o.status] ?? o.status}</td><td data-label="Total" class="money">${formatCents(o.total_cents, o.currency)}</td><td data-label="Made">${time(o.created_at)}</td></tr>`,
  )}</tbody></table>`;
}
