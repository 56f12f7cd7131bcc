import type { Db } from '../../db/knex.ts';
import type { WorkflowStarter } from '../../temporal/client.ts';
import { launchPaid } from '../launches/launch-paid.ts';
import { isoWeekStart } from '../ranking/weeks.ts';
import type { OrderLineRow } from './order-views.ts';
import { addDays } from './product-options.ts';

export interface FulfilmentDeps {
  db: Db;
  workflows: WorkflowStarter;
}

/** A line that cannot be fulfilled however often it is retried (support must act). */
export class FulfilmentRefused extends Error {}

/** The order's lines not fulfilled yet, in order. */
export async function openLines(db: Db, number: string): Promise<{ id: number; product: string }[]> {
  return db('order_lines as l')
    .join('orders as o', 'o.id', 'l.order_id')
    .where('o.number', number)
    .whereNull('l.fulfilled_at')
    .whereNull('l.refunded_at')
    .orderBy('l.position')
    .select('l.id', 'l.product');
}

/**
 * Fulfils one paid line, idempotently: every write is keyed by the line (ON CONFLICT DO NOTHING
 * or a set-if-absent), and `fulfilled_at` is set last, so a retry after a crash anywhere in
 * between does the rest and never doubles a placement.
 */
export async function fulfilLine(deps: FulfilmentDeps, lineId: number): Promise<{ fulfilledAt: string }> {
  const { db } = deps;
  const line = (await db('order_lines').where({ id: lineId }).first()) as OrderLineRow | undefined;
  if (!line) throw new FulfilmentRefused(`order line ${lineId} does not exist`);
  if (line.fulfilled_at) return { fulfilledAt: line.fulfilled_at.toISOString() };
  const order = await db('orders').where({ id: line.order_id }).first('site_id', 'paid_at', 'status');
  if (!order.paid_at) throw new FulfilmentRefused(`order line ${lineId} is not paid`);
  await PRODUCTS[line.product as keyof typeof PRODUCTS](deps, line, { siteId: order.site_id, paidAt: order.paid_at });
  const [row] = await db('order_lines')
    .where({ id: lineId })
    .update({ fulfilled_at: db.raw('coalesce(fulfilled_at, now())') })
    .returning('fulfilled_at');
  return { fulfilledAt: (row.fulfilled_at as Date).toISOString() };
}

type Fulfil = (deps: FulfilmentDeps, line: OrderLineRow, order: { siteId: number; paidAt: Date }) => Promise<void>;

const PRODUCTS: Record<string, Fulfil> = {
  async launch(deps, line) {
    await launchPaid(deps, line.listing_id!, (line.options.week as string | undefined) ?? null);
  },
  async featured({ db }, line, order) {
    const first = isoWeekStart(order.paidAt);
    const rows = Array.from({ length: line.options.weeks as number }, (_, i) => ({
      order_line_id: line.id,
      site_id: order.siteId,
      listing_id: line.listing_id,
      week_start: addDays(first, i * 7),
    }));
    await db('featured_placements').insert(rows).onConflict(['order_line_id', 'week_start']).ignore();
  },
  async categories({ db }, line, order) {
    const rows = (line.options.categories as string[]).map((category) => ({
      order_line_id: line.id,
      site_id: order.siteId,
      listing_id: line.listing_id,
      category,
    }));
    await db('category_placements').insert(rows).onConflict(['order_line_id', 'category']).ignore();
  },
  async billboard({ db }, line, order) {
    const days = Array.from({ length: line.options.days as number }, (_, i) => addDays(line.options.start_date as string, i));
    const rows = days.map((day) => ({ site_id: order.siteId, day, order_line_id: line.id, listing_id: line.listing_id }));
    await db('billboard_days').insert(rows).onConflict(['site_id', 'day']).ignore();
    // Another order booked some of these days between checkout and payment: support decides.
    const mine = await db('billboard_days').where({ order_line_id: line.id }).count({ n: '*' });
    if (Number(mine[0]!.n) !== days.length) throw new FulfilmentRefused(`billboard days from ${days[0]} are booked by another order`);
  },
  async unlock_section({ db }, line) {
    await db('listings')
      .where({ id: line.listing_id })
      .whereRaw('NOT (? = ANY(unlocked_sections))', [line.options.section as string])
      .update({
        unlocked_sections: db.raw('array_append(unlocked_sections, ?)', [line.options.section as string]),
        updated_at: db.fn.now(),
      });
  },
};
