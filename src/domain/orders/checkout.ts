import { randomBytes, randomInt } from 'node:crypto';
import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/knex.ts';
import type { WorkflowStartQueue } from '../ports.ts';
import { recordWorkflowStart } from '../workflow-outbox/starts.ts';
import { requireSellerForPayments } from '../sites/seller.ts';
import { orderWorkflowId } from '../../workflows/contracts/workflow-ids.ts';
import type { OrderWorkflowInput } from './order-flow.ts';
import { holdCapacity } from './capacity-holds.ts';
import { linesOf, toOrderView, type OrderRow, type OrderView } from './order-views.ts';
import { priceOrder, type PricedOrder, type PricingContext, type QuoteInput, type QuoteLine } from './pricing.ts';
import { promoInvalid, promoRefusal, type PromoCode } from './promos.ts';

export interface CheckoutDeps {
  db: Db;
  config: Config;
  workflowStarts: WorkflowStartQueue;
}

// No 0/O, 1/I/L: numbers are read aloud to support.
const NUMBER_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

/** A human-friendly order number such as `LD-7K3M-9QX2` (~39 bits; uniqueness is the table's). */
export function newOrderNumber(): string {
  const pick = () => Array.from({ length: 4 }, () => NUMBER_ALPHABET[randomInt(NUMBER_ALPHABET.length)]).join('');
  return `LD-${pick()}-${pick()}`;
}

/** The checkout link's secret: 256 random bits, never the order number. */
export const newCheckoutToken = () => randomBytes(32).toString('base64url');

/**
 * create_checkout: prices the order with the one pricing function, saves it `pending` with its
 * lines, reserves the promo redemption (under a lock of the code, so the cap holds however many
 * checkouts race), holds the capacity its items need for the life of the link (under the locks
 * bookings take; 409 sold_out when there is no room) and records the start of `order:{number}`,
 * made once all of it is committed: a pending order always has its workflow to expire it. With a real
 * provider and the site's seller details incomplete it is refused (503 seller_details_missing).
 */
export async function createCheckout(deps: CheckoutDeps, ctx: PricingContext, input: QuoteInput): Promise<OrderView> {
  const priced = await priceOrder(deps.db, ctx, input);
  // Refused before anything is held: an order that real money would pay needs a fileable invoice.
  await requireSellerForPayments(deps.db, deps.config.orders.provider, ctx.site.id);
  const expiresAt = new Date(ctx.now.getTime() + deps.config.orders.checkoutTtlSeconds * 1000);
  const { order, startId } = await insertOrder(deps, ctx, input, priced, expiresAt);
  await deps.workflowStarts.startNow([startId]);
  return toOrderView(deps.config, order, (await linesOf(deps.db, [order.id])).get(order.id)!);
}

const listingIdsOf = (priced: PricedOrder) => [...new Set(priced.items.map((i) => i.listing_id).filter((id): id is number => id !== null))];

async function insertOrder(
  deps: CheckoutDeps,
  ctx: PricingContext,
  input: QuoteInput,
  priced: PricedOrder,
  expiresAt: Date,
): Promise<{ order: OrderRow; startId: number }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await deps.db.transaction(async (trx) => {
        // The code's row first: the order's foreign key to it would otherwise share-lock it and deadlock the racers.
        const promo = priced.promo ? await trx('promo_codes').where({ id: priced.promo.id }).forUpdate().first() : null;
        const [order] = await trx('orders')
          .insert({
            site_id: ctx.site.id,
            user_id: ctx.userId,
            number: newOrderNumber(),
            checkout_token: newCheckoutToken(),
            quote: JSON.stringify(priced.quote),
            billing: JSON.stringify({ name: null, country: input.billing_country, vat_number: priced.vatCheck?.number ?? null }),
            vat_check: priced.vatCheck ? JSON.stringify(priced.vatCheck) : null,
            total_cents: priced.quote.total_cents,
            promo_code_id: priced.promo?.id ?? null,
            expires_at: expiresAt,
          })
          .returning('*');
        const lines: { id: number }[] = await trx('order_lines')
          .insert(priced.quote.lines.map((l, position) => lineRow(l, order.id, position)))
          .returning('id');
        if (promo) await reservePromo(trx, ctx, priced, promo, order.id);
        // Last: the week and billboard locks are held for as short a time as the transaction allows.
        await holdCapacity(
          trx,
          ctx.site.id,
          order.id,
          lines.map((l) => l.id),
          priced.items,
          ctx.now,
        );
        const flow: OrderWorkflowInput = {
          number: order.number,
          expiresAt: expiresAt.toISOString(),
          fulfilMaxAttempts: deps.config.orders.fulfilMaxAttempts,
          stepRetry: deps.config.orders.stepRetry,
        };
        const start = {
          kind: 'order' as const,
          workflowId: orderWorkflowId(order.number),
          input: { order: flow, listingIds: listingIdsOf(priced) },
        };
        return { order, startId: await recordWorkflowStart(trx, start, deps.workflowStarts.inlineLeaseMs()) };
      });
    } catch (err) {
      // A number already taken (1 in ~10^11 per pair): draw another.
      if ((err as { constraint?: string }).constraint === 'orders_number_unique' && attempt < 3) continue;
      throw err;
    }
  }
}

/** The order_lines row of a quote line: the quote's fields are its columns. */
const lineRow = (line: QuoteLine, orderId: number, position: number) => ({
  ...line,
  options: JSON.stringify(line.options),
  order_id: orderId,
  position,
});

/** Under the code's row lock, so that concurrent checkouts count each other's reservations. */
async function reservePromo(trx: Db, ctx: PricingContext, priced: PricedOrder, promo: PromoCode, orderId: number): Promise<void> {
  const reason = await promoRefusal(trx, promo, { userId: ctx.userId, lines: priced.items, now: ctx.now, orderId });
  if (reason) throw promoInvalid(reason);
  await trx('promo_redemptions').insert({ promo_code_id: promo.id, order_id: orderId, user_id: ctx.userId, state: 'reserved' });
}
