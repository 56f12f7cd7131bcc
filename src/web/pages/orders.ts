import type { Context } from 'koa';
import { AppError, notFound } from '../../errors/errors.ts';
import { getMyListingOp } from '../../operations/listings.ts';
import type { OperationContext } from '../../operations/operation.ts';
import { listMyOrdersOp } from '../../operations/orders.ts';
import { formatCents, invoiceParties, listingText, myOrder, productName } from '../../operations/read-models/orders.ts';
import { orderTable } from '../checkout-view.ts';
import { time } from '../components.ts';
import { pager } from '../content.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage, pageContext } from '../invoke.ts';
import { renderPage } from '../render.ts';
import { requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';
import { pageNumber } from './updates.ts';

const PATH = '/account/orders';
const PER_PAGE = 20;
const NUMBER = /^LD-[0-9A-Z]{4}-[0-9A-Z]{4}$/;

/** The signed-in person's orders, one order's page, and its printable invoice. */
export const orderPages: PageRoutes = (router, services) => {
  router.get(PATH, requireUser(services), async function showOrders(ctx) {
    const page = pageNumber(ctx.query.page);
    // `?listing=` shows one listing's orders; another account's listing is a page that does not exist.
    const listing = ctx.query.listing === undefined ? null : await ownListing(ctx, services, ctx.query.listing);
    const list = await invokeForPage(ctx, services, listMyOrdersOp, {
      page,
      per_page: PER_PAGE,
      ...(listing ? { listing_id: listing.id } : {}),
    });
    await renderPage(ctx, services, {
      title: listing ? `Orders for ${listing.name}` : 'Your orders',
      main: html`${listing ? html`<p><a href="/account/listings/${listing.id}">Back to ${listing.name}</a> · <a href="${PATH}">All your orders</a></p>` : ''}
${
  list.items.length
    ? html`<table class="stack"><thead><tr><th scope="col">Order</th><th scope="col">Date</th><th scope="col">Items</th><th scope="col">Status</th><th scope="col">Total</th></tr></thead>
<tbody>${list.items.map((o) => html`<tr data-order="${o.number}"><td data-label="Order"><a href="${PATH}/${o.number}">${o.number}</a></td><td data-label="Date">${time(o.created_at)}</td><td data-label="Items">${o.lines.map((l, i) => html`${i ? html`<br>` : ''}${lineSummary(l)}`)}</td><td data-label="Status" data-status="${o.status}">${ORDER_STATUS[o.status]}</td><td data-label="Total" class="money">${formatCents(o.total_cents)}</td></tr>`)}</tbody></table>
${pager(PATH, page, PER_PAGE, list.total, listing ? { listing: String(listing.id) } : {})}`
    : html`<p>No orders yet.${listing ? html` <a href="/account/listings/${listing.id}/promote">Promote ${listing.name}</a> to buy a launch or a placement.` : ' Buy a launch or a placement from the Promote page of one of your listings.'}</p>`
}`,
    });
  });

  router.get(`${PATH}/{number}`, requireUser(services), async function showOrder(ctx) {
    const { order, lines } = await ownOrder(await pageContext(ctx, services), ctx.params.number!);
    await renderPage(ctx, services, {
      title: `Order ${order.number}`,
      main: html`${orderLinks(lines)}
<p data-order-status="${order.status}">Status: <strong>${ORDER_STATUS[order.status]}</strong>${order.paid_at ? html` · paid ${time(order.paid_at)}${order.payment_method ? ` by ${order.payment_method}` : ''}` : ''}</p>
${order.status === 'pending' ? html`<p><a href="/checkout/${order.checkout_token}">Pay this order</a> (the link is valid until ${time(order.expires_at)})</p>` : ''}
${orderTable(order, lines)}
<h2>Fulfilment</h2>
<ul>${lines.map((l) => html`<li data-line-fulfilled="${l.fulfilled_at ? 'true' : 'false'}">${lineSummary(l)}: ${l.fulfilled_at ? html`fulfilled ${time(l.fulfilled_at)}` : 'not yet fulfilled'}${l.refunded_at ? html` (refunded)${endedList(l.ended)}` : ''}</li>`)}</ul>
${order.invoice_number !== null ? html`<p><a href="${PATH}/${order.number}/invoice">Invoice ${order.invoice_label ?? order.invoice_number}</a> (printable)</p>` : ''}`,
    });
  });

  router.get(`${PATH}/{number}/invoice`, requireUser(services), async function showInvoice(ctx) {
    const { order, lines } = await ownOrder(await pageContext(ctx, services), ctx.params.number!);
    if (order.invoice_number === null) throw new AppError('not_found', 'The invoice is issued when the order is paid.');
    const { seller, buyerEmail } = await invoiceParties(await pageContext(ctx, services), order);
    const label = order.invoice_label ?? String(order.invoice_number);
    await renderPage(ctx, services, {
      title: `Invoice ${label}`,
      main: html`<section class="invoice" aria-label="Invoice">
<p>Invoice number <strong data-invoice-number>${label}</strong> · date ${time(order.paid_at)} · order ${order.number}</p>
<div class="parties">
<div><h2>Seller</h2><p data-seller><span data-seller-name>${seller.name}</span>${seller.address ? html`<br><span class="address" data-seller-address>${seller.address}</span>` : ''}<br>Country: ${seller.country}${seller.vat_id ? html`<br>VAT ID: <span data-seller-vat-id>${seller.vat_id}</span>` : ''}</p></div>
<div><h2>Buyer</h2><p data-buyer><span data-buyer-name>${order.billing.name ?? buyerEmail}</span><br>Country: ${order.billing.country}${order.billing.vat_number ? html`<br>VAT number: ${order.billing.vat_number}` : ''}</p></div>
</div>
${orderTable(order, lines)}
<p>Paid ${formatCents(order.paid_cents ?? order.total_cents, order.paid_currency ?? order.currency)}${order.payment_method ? ` by ${order.payment_method}` : ''}.</p>
</section>
<p class="muted no-print">Use your browser's print command to print or save this invoice as PDF.</p>`,
    });
  });
};

/** `Featured placement for Acme`: what a line bought, the listing by its name. */
const lineSummary = (l: { product: string; listing_id: number | null; listing_name: string | null }) =>
  `${productName(l.product)}${l.listing_id !== null ? ` for ${listingText(l)}` : ''}`;

/** What a line's refund ended, one sentence each (nothing when it ended nothing). */
const endedList = (ended: { text: string }[]) =>
  ended.length ? html`<ul class="ended">${ended.map((e) => html`<li data-ended>${e.text}</li>`)}</ul>` : '';

/** An order's status in words. */
const ORDER_STATUS: Record<string, string> = {
  pending: 'Waiting for payment',
  paid: 'Paid, being fulfilled',
  fulfilled: 'Paid and fulfilled',
  attention: 'Paid; our support team is looking at it',
  expired: 'Expired before payment',
  canceled: 'Canceled',
  refunded: 'Refunded',
};

/** The listing of `?listing=`, one of the person's; anything else is a 404 page. */
async function ownListing(ctx: Context, services: WebServices, raw: unknown) {
  if (typeof raw !== 'string' || !/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) throw notFound('The listing');
  return invokeForPage(ctx, services, getMyListingOp, { listing_id: Number(raw) });
}

/** One of the person's orders; another account's order is a 404 page. */
function ownOrder(c: OperationContext, number: string) {
  if (!NUMBER.test(number)) throw new AppError('not_found', 'There is no such order.');
  return myOrder(c, number);
}

/** Where an order page leads back to: the orders list and each listing the order is for. */
function orderLinks(lines: { listing_id: number | null; listing_name: string | null }[]): SafeHtml {
  const listings = new Map(lines.flatMap((l) => (l.listing_id !== null ? [[l.listing_id, l.listing_name ?? 'the listing'] as const] : [])));
  return html`<p class="order-links"><a href="${PATH}">All your orders</a>${[...listings].map(([id, name]) => html` · <a href="/account/listings/${id}">Back to ${name}</a>`)}</p>`;
}
