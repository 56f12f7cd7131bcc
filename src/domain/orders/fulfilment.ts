import type { Db } from '../../db/knex.ts';
import { AppError } from '../../errors/errors.ts';
import type { WorkflowStarter } from '../ports.ts';
import { launchPaid } from '../launches/launch-paid.ts';
import { lockBillboard } from './billboard-capacity.ts';
import { releaseLineHolds } from './capacity-holds.ts';
import { billboardRefusal, lineRefusal, sectionRefusal } from './deliverable.ts';
import { coveredMondays } from './line-text.ts';
import type { OrderLineRow } from './order-views.ts';
import { addDays } from './product-options.ts';

export interface FulfilmentDeps {
  db: Db;
  workflows: WorkflowStarter;
  /** Links in the events a paid launch sends to the owner's webhooks. */
  baseUrl?: string;
  /** Whether the line can still be delivered (its week, its days) is decided at this instant. */
  now: Date;
}

/** A line that cannot be fulfilled however often it is retried (support must act). */
export class FulfilmentRefused extends Error {}

/**
 * A paid line whose product can no longer be delivered (its week is full after an operator
 * change, its billboard days went to another order, its section is unlocked already, its listing
 * is unlisted...): the order refunds it at once, support has nothing to decide.
 */
export class Undeliverable extends Error {}

// What launchPaid refuses that no retry can change: the line cannot be delivered.
const UNDELIVERABLE_LAUNCH = new Set(['not_found', 'listing_unlisted', 'launch_week_full', 'launch_week_past', 'launch_week_too_far']);

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
  const line = await db('order_lines').where({ id: lineId }).first();
  if (!line) throw new FulfilmentRefused(`order line ${lineId} does not exist`);
  if (line.fulfilled_at) return { fulfilledAt: line.fulfilled_at.toISOString() };
  // Refunded by support between the order's listing of open lines and this step: nothing to deliver.
  if (line.refunded_at) throw new Undeliverable(`order line ${lineId} was refunded`);
  const order = await db('orders').where({ id: line.order_id }).first('site_id', 'paid_at', 'status');
  if (!order!.paid_at) throw new FulfilmentRefused(`order line ${lineId} is not paid`);
  // The rule the pay page applied before charging; each product checks again under its locks.
  const refusal = await lineRefusal(db, order!.site_id, line, deps.now);
  if (refusal) throw new Undeliverable(refusal);
  await PRODUCTS[line.product as keyof typeof PRODUCTS](deps, line, { siteId: order!.site_id, paidAt: order!.paid_at });
  const [row] = await db('order_lines')
    .where({ id: lineId })
    .update({ fulfilled_at: db.raw('coalesce(fulfilled_at, now())') })
    .returning('fulfilled_at');
  return { fulfilledAt: (row.fulfilled_at as Date).toISOString() };
}

type Fulfil = (deps: FulfilmentDeps, line: OrderLineRow, order: { siteId: number; paidAt: Date }) => Promise<void>;

const PRODUCTS: Record<string, Fulfil> = {
  async launch(deps, line) {
    try {
      await launchPaid(deps, line.listing_id!, (line.options.week as string | undefined) ?? null, deps.now);
    } catch (err) {
      if (err instanceof AppError && UNDELIVERABLE_LAUNCH.has(err.code)) throw new Undeliverable(err.message);
      throw err;
    }
    // Booked: the slot the checkout held is the booking now.
    await releaseLineHolds(deps.db, line.id);
  },
  async featured({ db }, line, order) {
    const rows = coveredMondays(line, order.paidAt)!.map((week_start) => ({
      order_line_id: line.id,
      site_id: order.siteId,
      listing_id: line.listing_id!,
      week_start,
    }));
    await db('featured_placements').insert(rows).onConflict(['order_line_id', 'week_start']).ignore();
  },
  async categories({ db }, line, order) {
    const rows = (line.options.categories as string[]).map((category) => ({
      order_line_id: line.id,
      site_id: order.siteId,
      listing_id: line.listing_id!,
      category,
    }));
    await db('category_placements').insert(rows).onConflict(['order_line_id', 'category']).ignore();
  },
  async billboard({ db }, line, order) {
    const days = Array.from({ length: line.options.days as number }, (_, i) => addDays(line.options.start_date as string, i));
    await db.transaction(async (trx) => {
      await lockBillboard(trx, order.siteId);
      // Days another order booked or holds (this line's hold lost meanwhile): nothing is booked, the line is refunded.
      const refusal = await billboardRefusal(trx, order.siteId, line);
      if (refusal) throw new Undeliverable(refusal);
      const rows = days.map((day) => ({ site_id: order.siteId, day, order_line_id: line.id, listing_id: line.listing_id! }));
      await trx('billboard_days').insert(rows).onConflict(['site_id', 'day']).ignore();
      await releaseLineHolds(trx, line.id);
    });
  },
  async unlock_section({ db }, line) {
    const section = line.options.section as string;
    // Unlocked and marked fulfilled in one transaction: a retry after a crash finds the line
    // fulfilled (fulfilLine returns early), so a section found unlocked was unlocked by something else.
    await db.transaction(async (trx) => {
      const listing = await trx('listings').where({ id: line.listing_id! }).forUpdate().first('unlocked_sections');
      if (!listing) throw new Undeliverable(`listing ${line.listing_id} no longer exists`);
      const refusal = sectionRefusal(listing, line);
      if (refusal) throw new Undeliverable(refusal);
      await trx('listings')
        .where({ id: line.listing_id! })
        .update({ unlocked_sections: trx.raw('array_append(unlocked_sections, ?)', [section]), updated_at: trx.fn.now() });
      await trx('order_lines').where({ id: line.id }).update({ fulfilled_at: trx.fn.now() });
    });
  },
};
