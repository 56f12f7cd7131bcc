import type { Db } from '../../db/knex.ts';
import { AppError } from '../../errors/errors.ts';
import type { Site } from '../sites/sites.ts';
import { resolveItems, type CatalogCaches, type OrderItemInput, type ResolvedItem } from './items.ts';
import { formatCents, type LineFacts } from './line-text.ts';
import { applyBp, splitByLargestRemainder } from './money.ts';
import {
  findPromo,
  isEligible,
  eligibleCents,
  promoInvalid,
  promoRefusal,
  takePromoTry,
  type PromoAttemptLimits,
  type PromoCode,
} from './promos.ts';
import { checkVatNumber, decideVat, type VatCheck, type VatDecision } from './vat.ts';

/** The body of quote_order and create_checkout. */
export interface QuoteInput {
  items: OrderItemInput[];
  billing_country: string;
  vat_number?: string | undefined;
  promo_code?: string | undefined;
}

export interface QuoteLine extends LineFacts {
  /** quantity × unit price, before any discount. */
  amount_cents: number;
  discount_cents: number;
  net_cents: number;
  vat_cents: number;
}

/** The price of an order (integer cents and basis points only); also stored inside the order. */
export interface Quote {
  currency: 'USD';
  lines: QuoteLine[];
  subtotal_cents: number;
  discount_cents: number;
  net_cents: number;
  vat: VatDecision & { amount_cents: number };
  total_cents: number;
  promo: { code: string; takes_off_cents: number } | null;
}

export interface PricingContext {
  site: Site;
  userId: number;
  clientIp: string;
  now: Date;
  promoLimits: PromoAttemptLimits;
  /** Re-pricing an existing order: its own promo reservation does not count against it, and a refusal is no wrong try. */
  orderId?: number;
  /** Unit prices snapshotted into the order's lines at checkout; re-pricing keeps them. */
  unitPrices?: number[];
  /**
   * Quotes may read the product list as list_products does and the caller's listings through
   * these caches; checkouts leave it out and read the tables, so the snapshot is the admin's
   * current price and ownership is checked against the table.
   */
  catalog?: CatalogCaches;
}

/** An item with its amount: quantity × unit price, before any discount. */
export type PricedItem = ResolvedItem & { amount_cents: number };

export interface PricedOrder {
  quote: Quote;
  items: PricedItem[];
  vatCheck: VatCheck | null;
  promo: PromoCode | null;
}

/**
 * THE pricing function: quote_order, create_checkout and the pay page all price through it.
 * Items are validated, the promo code checked (wrong tries counted and limited), the VAT
 * treatment decided, then the amounts computed by computeQuote.
 */
export async function priceOrder(db: Db, ctx: PricingContext, input: QuoteInput): Promise<PricedOrder> {
  const country = input.billing_country;
  const vatCheck = input.vat_number ? checkVatNumber(input.vat_number, country, ctx.now) : null;
  const resolved = await resolveItems(db, ctx.site, ctx.userId, input.items, ctx.now, ctx.catalog);
  const items = resolved.map((item, i) => withAmount(item, ctx.unitPrices?.[i] ?? item.unit_price_cents));
  const promo = input.promo_code === undefined ? null : await usablePromo(db, ctx, input.promo_code, items);
  const vat = decideVat(ctx.site.settings.seller_country, country, vatCheck, ctx.now);
  const quote = computeQuote(items, promo, vat);
  if (quote.subtotal_cents > MAX_SUBTOTAL_CENTS) throw tooLarge(quote.subtotal_cents);
  return { quote, items, vatCheck, promo };
}

/**
 * The largest subtotal taken (USD 10,000,000.00): with per-unit prices 90 days of an admin's
 * price could pass the 32-bit amounts of the order tables; with VAT the total stays below them.
 */
export const MAX_SUBTOTAL_CENTS = 1_000_000_000;

const tooLarge = (subtotal: number) =>
  new AppError(
    'order_item_refused',
    `The order comes to ${formatCents(subtotal)} before VAT, above the ${formatCents(MAX_SUBTOTAL_CENTS)} one order can be; split it.`,
    { errors: [{ path: 'items', message: `At most ${formatCents(MAX_SUBTOTAL_CENTS)} before VAT in one order` }] },
  );

/** The price is per unit: a featured week, a billboard day, a category. */
const withAmount = (item: ResolvedItem, unitPriceCents: number): PricedItem => ({
  ...item,
  unit_price_cents: unitPriceCents,
  amount_cents: item.quantity * unitPriceCents,
});

async function usablePromo(db: Db, ctx: PricingContext, typed: string, items: PricedItem[]): Promise<PromoCode> {
  // Re-pricing an order re-checks its own code: no try is taken, a refusal is no wrong try.
  const tried = ctx.orderId === undefined ? await takePromoTry(db, ctx.promoLimits, ctx.userId, ctx.clientIp) : null;
  const promo = await findPromo(db, ctx.site.id, typed);
  const reason = await promoRefusal(db, promo, { userId: ctx.userId, lines: items, now: ctx.now, orderId: ctx.orderId });
  if (reason) throw promoInvalid(reason);
  await tried?.giveBack();
  return promo!;
}

/**
 * The amounts: the promo's discount is split over its eligible lines by largest remainder, VAT
 * is computed once on the discounted net (half-up) and split over the lines the same way.
 */
export function computeQuote(
  items: Omit<PricedItem, 'product_name'>[],
  promo: Pick<PromoCode, 'code' | 'percent_bp' | 'amount_cents' | 'products'> | null,
  vat: VatDecision,
): Quote {
  const subtotal = items.reduce((sum, i) => sum + i.amount_cents, 0);
  const eligible = promo ? eligibleCents(promo, items) : 0;
  const discount = !promo
    ? 0
    : promo.percent_bp !== null
      ? applyBp(eligible, promo.percent_bp)
      : Math.min(promo.amount_cents ?? 0, eligible);
  const discounts = splitByLargestRemainder(
    discount,
    items.map((i) => (promo && isEligible(promo, i.product) ? i.amount_cents : 0)),
  );
  const nets = items.map((i, k) => i.amount_cents - discounts[k]!);
  const net = subtotal - discount;
  const vatAmount = applyBp(net, vat.rate_bp);
  const vats = splitByLargestRemainder(vatAmount, nets);
  return {
    currency: 'USD',
    lines: items.map((i, k) => ({
      product: i.product,
      listing_id: i.listing_id,
      listing_name: i.listing_name,
      options: i.options,
      unit: i.unit,
      quantity: i.quantity,
      unit_price_cents: i.unit_price_cents,
      amount_cents: i.amount_cents,
      discount_cents: discounts[k]!,
      net_cents: nets[k]!,
      vat_cents: vats[k]!,
    })),
    subtotal_cents: subtotal,
    discount_cents: discount,
    net_cents: net,
    vat: { ...vat, amount_cents: vatAmount },
    total_cents: net + vatAmount,
    promo: promo ? { code: promo.code, takes_off_cents: discount } : null,
  };
}
