import { z } from 'zod';
import type { ErrorCode } from '../errors/errors.ts';
import { checkRoom } from '../domain/orders/capacity-holds.ts';
import { createCheckout } from '../domain/orders/checkout.ts';
import { getOrderView, listOrderViews } from '../domain/orders/order-views.ts';
import { priceOrder, type PricingContext } from '../domain/orders/pricing.ts';
import { coveredWeeks } from '../domain/orders/line-text.ts';
import { siteWeekWindow, weekLeftText } from '../domain/orders/placement-weeks.ts';
import { isoWeekLabel } from '../workflows/contracts/weeks.ts';
import { callerId, defineOperation, type OperationContext } from './operation.ts';
import { Order, QuoteBody, QuoteWithWeek } from './order-schemas.ts';
import { Id, PageQuery, page } from './schemas.ts';

const pricing = (ctx: OperationContext): PricingContext => ({
  site: ctx.site,
  userId: callerId(ctx),
  clientIp: ctx.clientIp,
  now: ctx.clock.now(),
  promoLimits: ctx.config.orders.promoLimits,
});

/** What pricing refuses, for quote_order and create_checkout alike (they price through one function). */
const PRICING_ERRORS: ErrorCode[] = [
  'not_found',
  'order_item_refused',
  'not_live_in_week',
  'promo_code_invalid',
  'rate_limited',
  'vat_number_invalid',
  'sold_out',
];

export const quoteOrderOp = defineOperation({
  name: 'quote_order',
  summary: 'Price an order with a VAT preview',
  description:
    "Uses the site's current prices and validates every option. With a promo code, shows what it takes off before VAT; " +
    'an unusable code is refused with its `reason`. Nothing is saved or charged.',
  method: 'POST',
  path: '/orders/quote',
  scope: 'orders:write',
  idempotent: false,
  // Read-only, yet it refuses what cannot be priced (found by npm run fuzz: the 422 was undocumented).
  errorCodes: PRICING_ERRORS,
  readOnly: true,
  tags: ['orders'],
  input: z.object(QuoteBody),
  output: QuoteWithWeek,
  async handler(input, ctx) {
    const context = { ...pricing(ctx), catalog: ctx.config.cache.catalogTtlMs ? ctx.caches.catalog : undefined };
    const priced = await priceOrder(ctx.db, context, input);
    await checkRoom(ctx.db, ctx.site.id, priced.items, context.now);
    const window = siteWeekWindow(ctx.site, context.now);
    return {
      ...priced.quote,
      lines: priced.quote.lines.map((l) => ({ ...l, weeks: coveredWeeks(l) })),
      current_week: {
        week: isoWeekLabel(window.current),
        ends_at: window.ends_at.toISOString(),
        hours_left: Math.floor(window.ms_left / 3_600_000),
        short: window.short,
        notice: weekLeftText(window),
      },
    };
  },
});

export const createCheckoutOp = defineOperation({
  name: 'create_checkout',
  summary: 'Build an order and get its checkout link',
  description:
    'Prices the order like quote_order, saves it as `pending` and returns `checkout_url`: give it to the person, who reviews ' +
    'the order, enters billing details and pays there. Never ask for card details. The link expires at `expires_at`; ' +
    'until then the order holds what it needs (a paid launch slot of its week, billboard days), and gives it back when the link expires. ' +
    'A site whose operator has not yet set the seller details its invoices need takes no real payments (503 `seller_details_missing`).',
  method: 'POST',
  path: '/orders/checkout',
  scope: 'orders:write',
  idempotent: true,
  errorCodes: [...PRICING_ERRORS, 'payments_unavailable', 'seller_details_missing', 'workflow_unavailable'],
  readOnly: false,
  successStatus: 201,
  tags: ['orders'],
  input: z.object(QuoteBody),
  output: Order,
  handler: (input, ctx) => createCheckout({ db: ctx.db, config: ctx.config, workflowStarts: ctx.workflowStarts }, pricing(ctx), input),
});

export const listMyOrdersOp = defineOperation({
  name: 'list_my_orders',
  summary: 'Your orders, newest first',
  method: 'GET',
  path: '/orders',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['orders'],
  input: z.object({
    ...PageQuery,
    listing_id: Id.optional().describe('Only the orders with a line for this listing (another account’s listing: no orders)'),
  }),
  output: page(Order),
  handler: (input, ctx) => listOrderViews(ctx.db, ctx.config, callerId(ctx), input.page, input.per_page, input.listing_id),
});

export const getOrderOp = defineOperation({
  name: 'get_order',
  summary: 'One of your orders',
  description: 'Status, totals with VAT, and each line with whether it was fulfilled.',
  method: 'GET',
  path: '/orders/{number}',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['orders'],
  input: z.object({ number: z.string().min(1).max(40).describe('The order number, e.g. LD-7K3M-9QX2') }),
  output: Order,
  handler: (input, ctx) => getOrderView(ctx.db, ctx.config, callerId(ctx), input.number),
});

/** Orders: quote, check out, read and cancel, with invoices. */
export const orderOperations = [quoteOrderOp, createCheckoutOp, listMyOrdersOp, getOrderOp];
