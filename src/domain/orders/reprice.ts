import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/knex.ts';
import { AppError, conflict } from '../../errors/errors.ts';
import { readSites } from '../sites/sites.ts';
import type { OrderRow } from './order-views.ts';
import { priceOrder, type PricedOrder, type QuoteInput } from './pricing.ts';
import type { PromoReason } from './promos.ts';

export interface BillingInput {
  name: string | null;
  country: string;
  vat_number: string | null;
}

export interface Repriced {
  order: OrderRow;
  /** The order's promo code stopped being valid: why (it was removed and the total changed). */
  promoDropped: PromoReason | null;
}

/**
 * Prices a pending order again with the one pricing function (the pay page's billing details,
 * and the promo re-check before anything is charged). A code that stopped being valid is
 * dropped and its reservation released; the caller shows the reason and the new total.
 */
export async function repriceOrder(
  db: Db,
  config: Config,
  order: OrderRow,
  billing: BillingInput,
  clientIp: string,
  now: Date,
): Promise<Repriced> {
  const site = (await readSites(db)).find((s) => s.id === order.site_id)!;
  const lines = await db('order_lines').where({ order_id: order.id }).orderBy('position');
  const ctx = {
    site,
    userId: order.user_id,
    clientIp,
    now,
    promoLimits: config.orders.promoLimits,
    orderId: order.id,
    unitPrices: lines.map((l: { unit_price_cents: number }) => l.unit_price_cents),
  };
  const input: QuoteInput = {
    items: lines.map((l: { product: string; listing_id: number | null; options: Record<string, unknown> }) => ({
      product: l.product,
      listing_id: l.listing_id ?? undefined,
      options: l.options,
    })),
    billing_country: billing.country,
    vat_number: billing.vat_number ?? undefined,
    promo_code: order.quote.promo?.code,
  };
  let promoDropped: PromoReason | null = null;
  let priced: PricedOrder;
  try {
    priced = await priceOrder(db, ctx, input);
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'promo_code_invalid') throw err;
    promoDropped = err.extensions.reason as PromoReason;
    priced = await priceOrder(db, ctx, { ...input, promo_code: undefined });
  }
  return { order: await saveRepriced(db, order, billing, priced), promoDropped };
}

async function saveRepriced(db: Db, order: OrderRow, billing: BillingInput, priced: PricedOrder): Promise<OrderRow> {
  return db.transaction(async (trx) => {
    const current = await trx('orders').where({ id: order.id }).forUpdate().first('status');
    if (current!.status !== 'pending') throw conflict('order_not_pending', 'This order is no longer waiting for payment.');
    if (!priced.promo) await trx('promo_redemptions').where({ order_id: order.id }).delete();
    const [row] = await trx('orders')
      .where({ id: order.id })
      .update({
        quote: JSON.stringify(priced.quote),
        billing: JSON.stringify({ name: billing.name, country: billing.country, vat_number: priced.vatCheck?.number ?? null }),
        vat_check: priced.vatCheck ? JSON.stringify(priced.vatCheck) : null,
        total_cents: priced.quote.total_cents,
        promo_code_id: priced.promo?.id ?? null,
        updated_at: trx.fn.now(),
      })
      .returning('*');
    for (const [position, line] of priced.quote.lines.entries()) {
      await trx('order_lines')
        .where({ order_id: order.id, position })
        .update({ discount_cents: line.discount_cents, net_cents: line.net_cents, vat_cents: line.vat_cents });
    }
    return row;
  });
}
