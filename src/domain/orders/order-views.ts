import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/knex.ts';
import { notFound } from '../../errors/errors.ts';
import type { InvoiceSeller } from '../sites/seller.ts';
import { coveredWeeks } from './line-text.ts';
import type { Quote, QuoteLine } from './pricing.ts';
import type { EndedItem } from './refund-ended.ts';

export type OrderStatus = 'pending' | 'paid' | 'fulfilled' | 'expired' | 'canceled' | 'refunded' | 'attention';

/** An orders row as stored. */
export interface OrderRow {
  id: number;
  site_id: number;
  user_id: number;
  number: string;
  checkout_token: string;
  status: OrderStatus;
  currency: string;
  quote: Quote;
  billing: { name: string | null; country: string; vat_number: string | null };
  vat_check: Record<string, unknown> | null;
  total_cents: number;
  promo_code_id: number | null;
  expires_at: Date;
  payment_method: string | null;
  payment_id: string | null;
  paid_cents: number | null;
  paid_currency: string | null;
  paid_at: Date | null;
  invoice_number: number | null;
  /** The invoice number as printed, unique across sites (`INV-MAIN-000042`); set with invoice_number. */
  invoice_label: string | null;
  /** The seller the invoice names, as it was when the invoice was issued. */
  invoice_seller: InvoiceSeller | null;
  attention_reason: string | null;
  fulfilled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface OrderLineRow extends QuoteLine {
  id: number;
  order_id: number;
  position: number;
  fulfilled_at: Date | null;
  refunded_at: Date | null;
  /** What the line's refund ended, in words too (empty until it is refunded). */
  ended: EndedItem[];
}

export const checkoutUrl = (config: Pick<Config, 'baseUrl'>, token: string) => `${config.baseUrl}/checkout/${token}`;
export const invoiceUrl = (config: Pick<Config, 'baseUrl'>, number: string) => `${config.baseUrl}/account/orders/${number}/invoice`;

/** The order as get_order, list_my_orders and create_checkout return it. */
export function toOrderView(config: Pick<Config, 'baseUrl'>, order: OrderRow, lines: OrderLineRow[]) {
  const { lines: _quoted, ...totals } = order.quote;
  return {
    number: order.number,
    status: order.status,
    ...totals,
    lines: lines.map((l) => ({
      product: l.product,
      listing_id: l.listing_id,
      listing_name: l.listing_name,
      options: l.options,
      unit: l.unit,
      quantity: l.quantity,
      unit_price_cents: l.unit_price_cents,
      amount_cents: l.amount_cents,
      discount_cents: l.discount_cents,
      net_cents: l.net_cents,
      vat_cents: l.vat_cents,
      weeks: coveredWeeks(l, order.paid_at),
      fulfilled: l.fulfilled_at !== null,
      fulfilled_at: l.fulfilled_at?.toISOString() ?? null,
    })),
    billing: order.billing,
    checkout_url: order.status === 'pending' ? checkoutUrl(config, order.checkout_token) : null,
    expires_at: order.expires_at.toISOString(),
    payment_method: order.payment_method,
    paid_at: order.paid_at?.toISOString() ?? null,
    invoice_url: order.invoice_number !== null ? invoiceUrl(config, order.number) : null,
    created_at: order.created_at.toISOString(),
  };
}

export type OrderView = ReturnType<typeof toOrderView>;

/** Lines of some orders, by order id, in position order. */
export async function linesOf(db: Db, orderIds: number[]): Promise<Map<number, OrderLineRow[]>> {
  const rows: OrderLineRow[] = orderIds.length
    ? await db('order_lines').whereIn('order_id', orderIds).orderBy(['order_id', 'position'])
    : [];
  const byOrder = new Map<number, OrderLineRow[]>(orderIds.map((id) => [id, []]));
  for (const row of rows) byOrder.get(row.order_id)!.push(row);
  return byOrder;
}

/** One of the caller's orders; another account's order is "not found". */
export async function getOwnedOrder(db: Db, userId: number, number: string): Promise<OrderRow> {
  const order = await db('orders').where({ number: number.trim().toUpperCase(), user_id: userId }).first();
  if (!order) throw notFound(`Order ${number}`);
  return order;
}

export async function getOrderView(db: Db, config: Pick<Config, 'baseUrl'>, userId: number, number: string): Promise<OrderView> {
  const order = await getOwnedOrder(db, userId, number);
  return toOrderView(config, order, (await linesOf(db, [order.id])).get(order.id)!);
}

/** The caller's orders, newest first; with `listingId`, those with a line for that listing. */
export async function listOrderViews(
  db: Db,
  config: Pick<Config, 'baseUrl'>,
  userId: number,
  page: number,
  perPage: number,
  listingId?: number,
) {
  const mine = () => {
    const query = db('orders').where({ user_id: userId });
    return listingId === undefined
      ? query
      : query.whereExists(db('order_lines').whereRaw('order_lines.order_id = orders.id').where('order_lines.listing_id', listingId));
  };
  const [orders, [{ count }]] = await Promise.all([
    mine()
      .orderBy('id', 'desc')
      .limit(perPage)
      .offset((page - 1) * perPage),
    mine().count({ count: '*' }) as unknown as Promise<{ count: string }[]>,
  ]);
  const lines = await linesOf(
    db,
    orders.map((o) => o.id),
  );
  return { items: orders.map((o) => toOrderView(config, o, lines.get(o.id)!)), page, per_page: perPage, total: Number(count) };
}
