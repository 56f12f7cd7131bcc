import type { Config } from '../config.ts';
import type { Db } from '../db/knex.ts';
import { formatCents, unitPriceText } from '../domain/orders/line-text.ts';
import { orderDetails, refundOrder, retryOrder } from '../domain/orders/support.ts';
import type { PaymentProvider, WorkflowStarter } from '../domain/ports.ts';
import { OrderUsageError, type OrderFlags } from './orders.ts';

import type { Clock } from '../domain/time/clock.ts';
export const ORDER_SUPPORT_USAGE = `  npm run admin -- orders:show --number N
  npm run admin -- orders:retry --number N
  npm run admin -- orders:refund --number N [--line K]`;

/** What orders:retry and orders:refund need besides the database. */
export interface SupportDeps {
  config: Config;
  workflows: WorkflowStarter;
  /** Null when the server has no payment provider (refunds answer 503). */
  payments: PaymentProvider | null;
  /** What a refund reads "today" from (which placement weeks and billboard days are still to come). */
  clock?: Clock;
}

/** Runs an orders:* support command; returns null for other commands. */
export async function runOrderSupportCommand(
  db: Db,
  deps: SupportDeps | undefined,
  command: string | undefined,
  f: OrderFlags,
): Promise<number | null> {
  if (!command?.startsWith('orders:')) return null;
  const number = f.number;
  if (!number) throw new OrderUsageError(`--number is required.\n${ORDER_SUPPORT_USAGE}`);
  switch (command) {
    case 'orders:show': {
      const { order, lines, events, refunds } = await orderDetails(db, number);
      const money = (c: number) => formatCents(c, order.currency);
      console.log(`order ${order.number}\t${order.status}${order.attention_reason ? `\t${order.attention_reason}` : ''}`);
      console.log(
        `total ${money(order.total_cents)}\tpaid ${order.paid_cents === null ? '-' : money(order.paid_cents)} ${order.paid_at?.toISOString() ?? ''}\tinvoice ${order.invoice_number ?? '-'}`,
      );
      console.log(
        `vat ${order.quote.vat.treatment} ${order.quote.vat.rate_bp}bp ${order.quote.vat.country}\tworkflow order:${order.number}`,
      );
      for (const l of lines) {
        console.log(
          `line ${l.position}\t${l.product}\tlisting ${l.listing_id ?? '-'}${l.listing_name ? ` ${JSON.stringify(l.listing_name)}` : ''}\t${unitPriceText(l, order.currency)}\tnet ${money(l.net_cents)} + VAT ${money(l.vat_cents)}\t${l.fulfilled_at ? `fulfilled ${l.fulfilled_at.toISOString()}` : 'not fulfilled'}${l.refunded_at ? '\trefunded' : ''}`,
        );
      }
      for (const e of events)
        console.log(`event ${e.provider}:${e.provider_event_id}\t${e.type}\t${new Date(e.received_at).toISOString()}`);
      for (const r of refunds) console.log(`refund ${money(r.amount_cents)}\t${r.reason}\t${r.provider_refund_id}`);
      return 0;
    }
    case 'orders:retry': {
      if (!deps) throw new OrderUsageError('orders:retry needs the workflow service.');
      console.log(`${await retryOrder(db, deps.config, deps.workflows, number)} order:${number}`);
      return 0;
      for (const r of refunded) {
        console.log(`line ${r.line.position}\t${r.line.product}\t${r.ended.length ? 'ended:' : 'nothing to end'}`);
        for (const e of r.ended) console.log(`  ${e.text}`);
      }
    }
    case 'orders:refund': {
      if (!deps) throw new OrderUsageError('orders:refund needs the payment provider configuration.');
      const line = f.line === undefined ? undefined : Number(f.line);
      if (line !== undefined && !(Number.isInteger(line) && line >= 0))
        throw new OrderUsageError('--line must be a line position (0, 1, ...).');
      const { amountCents, refunded } = await refundOrder(db, deps, number, line);
      console.log(`refunded ${formatCents(amountCents)} of ${number}`);
      return 0;
    }
    default:
      throw new OrderUsageError(ORDER_SUPPORT_USAGE);
  }
}
