import type { Db } from '../db/knex.ts';
import { formatCents, lineText } from '../domain/orders/line-text.ts';
import { searchOrders } from '../domain/orders/search.ts';
import { orderDetails } from '../domain/orders/support.ts';
import { staffReplayOrderOp } from '../operations/staff-flows.ts';
import { staffRefundOrderLineOp } from '../operations/staff-orders.ts';
import { runOperationFromShell, type ShellServices } from './run-operation.ts';
import { AppError } from '../errors/errors.ts';
import { OrderUsageError, type OrderFlags } from './orders.ts';

export const ORDER_SUPPORT_USAGE = `  npm run admin -- orders:show --number N
  npm run admin -- orders:list [--email E] [--listing ID|slug] [--status S] [--from DATE] [--to DATE] [--site K] [--limit N]
  npm run admin -- orders:retry --number N
  npm run admin -- orders:refund --number N [--line K] [--reason R]   (as the console's refund: audited, ends what it bought)`;

/** What orders:retry and orders:refund need besides the database: the services of main.ts. */
export type SupportDeps = ShellServices;

/** Flags of the orders:* support commands (email, status and limit are the CLI's shared flags). */
export type SupportFlags = OrderFlags & { email?: string; status?: string; limit?: string; reason?: string };

const COMMANDS = new Set(['orders:show', 'orders:list', 'orders:retry', 'orders:refund']);

/** Runs an orders:* support command; returns null for other commands. */
export async function runOrderSupportCommand(
  db: Db,
  deps: SupportDeps | undefined,
  command: string | undefined,
  f: SupportFlags,
): Promise<number | null> {
  if (!command?.startsWith('orders:')) return null;
  if (!COMMANDS.has(command)) throw new OrderUsageError(`Unknown command "${command}".\n${ORDER_SUPPORT_USAGE}`);
  if (command === 'orders:list') return listOrders(db, f);
  const number = f.number;
  if (!number) throw new OrderUsageError(`--number is required.\n${ORDER_SUPPORT_USAGE}`);
  switch (command) {
    case 'orders:show':
      return showOrder(db, number);
    case 'orders:retry': {
      if (!deps) throw new OrderUsageError('orders:retry needs the workflow service.');
      const done = await runOperationFromShell(deps, staffReplayOrderOp, { number }, await siteKeyOfOrder(db, number));
      console.log(`${done.outcome} order:${done.ref}`);
      return 0;
    }
    case 'orders:refund': {
      if (!deps) throw new OrderUsageError('orders:refund needs the payment provider configuration.');
      const line = f.line === undefined ? undefined : Number(f.line);
      if (line !== undefined && !(Number.isInteger(line) && line >= 0))
        throw new OrderUsageError('--line must be a line position (0, 1, ...).');
      const reason = f.reason ?? 'Refunded from the command line.';
      const done = await runOperationFromShell(deps, staffRefundOrderLineOp, { number, line, reason }, await siteKeyOfOrder(db, number));
      console.log(`refunded ${formatCents(done.amount_cents)} of ${number}`);
      for (const r of done.refunded) {
        console.log(`line ${r.position}\t${r.product}\t${r.ended.length ? 'ended:' : 'nothing to end'}`);
        for (const e of r.ended) console.log(`  ${e.text}`);
      }
      return 0;
    }
    default:
      throw new OrderUsageError(ORDER_SUPPORT_USAGE);
  }
}

/** The shell acts on the order's own site (an operation finds only its site's orders). */
async function siteKeyOfOrder(db: Db, number: string): Promise<string | undefined> {
  const { order } = await orderDetails(db, number);
  return (await db('sites').where({ id: order.site_id }).first('key'))?.key;
}

/** `orders:show`: the order, who bought it (email, billing name), its invoice, each line as the buyer reads it. */
async function showOrder(db: Db, number: string): Promise<number> {
  const { order, buyerEmail, lines, events, refunds } = await orderDetails(db, number);
  const money = (c: number) => formatCents(c, order.currency);
  const b = order.billing;
  console.log(`order ${order.number}\t${order.status}${order.attention_reason ? `\t${order.attention_reason}` : ''}`);
  console.log(
    `buyer ${buyerEmail}\tbilling name ${b.name === null ? '-' : JSON.stringify(b.name)}\tcountry ${b.country}${b.vat_number ? `\tVAT number ${b.vat_number}` : ''}`,
  );
  console.log(
    `total ${money(order.total_cents)}\tpaid ${order.paid_cents === null ? '-' : money(order.paid_cents)} ${order.paid_at?.toISOString() ?? ''}\tinvoice ${order.invoice_label ?? order.invoice_number ?? '-'}`,
  );
  const s = order.invoice_seller;
  if (s)
    console.log(
      `seller ${JSON.stringify(s.name)}\taddress ${s.address === null ? '-' : JSON.stringify(s.address)}\tVAT ID ${s.vat_id ?? '-'}\tcountry ${s.country}`,
    );
  console.log(`vat ${order.quote.vat.treatment} ${order.quote.vat.rate_bp}bp ${order.quote.vat.country}\tworkflow order:${order.number}`);
  for (const l of lines) {
    console.log(
      `line ${l.position}\t${l.product}\tlisting ${l.listing_id ?? '-'}\t${lineText(l, order.currency, order.paid_at)}\tnet ${money(l.net_cents)} + VAT ${money(l.vat_cents)}\t${l.fulfilled_at ? `fulfilled ${l.fulfilled_at.toISOString()}` : 'not fulfilled'}${l.refunded_at ? '\trefunded' : ''}`,
    );
  }
  for (const e of events) console.log(`event ${e.provider}:${e.provider_event_id}\t${e.type}\t${new Date(e.received_at).toISOString()}`);
  for (const r of refunds) console.log(`refund ${money(r.amount_cents)}\t${r.reason}\t${r.provider_refund_id}`);
  return 0;
}

/** `orders:list`: every account's orders matching the filters, newest first, one per line. */
async function listOrders(db: Db, f: SupportFlags): Promise<number> {
  if (f.limit !== undefined && !/^\d{1,4}$/.test(f.limit)) throw new OrderUsageError('--limit must be a whole number.');
  const rows = await searchOrders(db, {
    email: f.email,
    listing: f.listing,
    status: f.status,
    from: f.from,
    to: f.to,
    site: f.site,
    limit: f.limit === undefined ? undefined : Number(f.limit),
  }).catch((err: unknown) => {
    // The domain names each bad filter by its field; here they are flags.
    if (err instanceof AppError && err.errors) throw new OrderUsageError(err.errors.map((e) => `--${e.path}: ${e.message}`).join('\n'));
    throw err;
  });
  console.log('number\tsite\tstatus\tcreated\temail\tbilling name\ttotal\tinvoice\tlistings');
  for (const o of rows) {
    console.log(
      [
        o.number,
        o.site,
        o.status,
        o.created_at.toISOString(),
        o.email,
        o.billing_name ?? '-',
        formatCents(o.total_cents, o.currency),
        o.invoice_label ?? '-',
        o.listings.join(', ') || '-',
      ].join('\t'),
    );
  }
  if (!rows.length) console.log('(no orders match)');
  return 0;
}
