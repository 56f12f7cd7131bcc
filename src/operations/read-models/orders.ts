import { getOwnedOrder, linesOf, type OrderLineRow, type OrderRow } from '../../domain/orders/order-views.ts';
import { invoiceSellerOf, readSeller, type InvoiceSeller } from '../../domain/sites/seller.ts';
import { listSites } from '../../domain/sites/sites.ts';
import { AppError } from '../../errors/errors.ts';
import { callerId, type OperationContext } from '../operation.ts';

/**
 * What the order pages, the invoice and the pay page read beyond list_my_orders and get_order:
 * the order rows with their lines as stored (the order table shows the quote and each line's
 * position), the order a checkout link pays, and the invoice's seller and buyer. How an order
 * line reads and the VAT number's normal form are the domain's, named here.
 */

export { formatCents, listingText, optionsText, productName, quantityText } from '../../domain/orders/line-text.ts';
export { normalVatNumber } from '../../domain/orders/vat.ts';
export { TEST_CARDS } from '../../payments/test-provider/cards.ts';

/** An order with its lines in position order. */
export interface OrderWithLines {
  order: OrderRow;
  lines: OrderLineRow[];
}

/** The lines of one order, in position order. */
export async function orderLines(c: Pick<OperationContext, 'db'>, orderId: number): Promise<OrderLineRow[]> {
  return (await linesOf(c.db, [orderId])).get(orderId)!;
}

/** One of the caller's orders with its lines; another account's order is not found. */
export async function myOrder(c: Pick<OperationContext, 'db' | 'principal'>, number: string): Promise<OrderWithLines> {
  const order = await getOwnedOrder(c.db, callerId(c), number);
  return { order, lines: await orderLines(c, order.id) };
}

/**
 * Who the invoice of an order names: the seller as they were when it was issued (kept on the
 * order; settings changed later do not rewrite it) and the buyer's email.
 */
export async function invoiceParties(
  c: Pick<OperationContext, 'db' | 'caches'>,
  order: OrderRow,
): Promise<{ seller: InvoiceSeller; buyerEmail: string }> {
  const buyer = await c.db('users').where({ id: order.user_id }).first('email');
  return { seller: order.invoice_seller ?? (await currentSeller(c, order.site_id)), buyerEmail: buyer!.email };
}

/** An invoice issued before the seller was kept on it (every such order was given one by migration 033). */
async function currentSeller(c: Pick<OperationContext, 'db' | 'caches'>, siteId: number): Promise<InvoiceSeller> {
  const site = (await listSites(c.db, c.caches.sites)).find((s) => s.id === siteId)!;
  return invoiceSellerOf(await readSeller(c.db, siteId), site.name);
}

/** A checkout link's token: 32 random bytes, base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The order a checkout link pays (the unguessable token is the authority, no session needed):
 * no such order is a 404, an expired checkout a 410, and one no longer pending a 409 unless
 * `allowClosed` (the done page shows any state).
 */
export async function checkoutOrder(
  c: Pick<OperationContext, 'db' | 'clock'>,
  token: string,
  o: { allowClosed?: boolean } = {},
): Promise<OrderRow> {
  const order = TOKEN.test(token) ? await c.db('orders').where({ checkout_token: token }).first() : undefined;
  if (!order) throw new AppError('not_found', 'There is no checkout at this address.');
  const expired = order.status === 'expired' || (order.status === 'pending' && order.expires_at <= c.clock.now());
  if (expired) throw new AppError('checkout_expired', 'Nothing was charged. Ask for a new checkout link.');
  if (!o.allowClosed && order.status !== 'pending') throw new AppError('order_not_pending', 'This order is no longer waiting for payment.');
  return order;
}
