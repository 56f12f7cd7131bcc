import type { Db } from '../../db/knex.ts';
import { releaseSlot } from '../launches/slots.ts';
import { isoWeekStart } from '../../workflows/contracts/weeks.ts';
import { releaseLineHolds } from './capacity-holds.ts';
import type { OrderLineRow } from './order-views.ts';
import type { EndedFact, EndedItem } from './refund-ended.ts';
import { endedText } from './refund-words.ts';

export type { EndedFact, EndedItem } from './refund-ended.ts';

/**
 * Refunding a line takes back what it paid for, at once (docs/payments.md): the featured
 * weeks from this week on, its category placements, its billboard days from today on, the section
 * it unlocked, and a paid launch of a listing not live yet (the listing goes back to choosing how
 * to launch). Past weeks and days stay as history: they were delivered. Each line keeps what its
 * refund ended (`order_lines.ended`), so the orders page, the refund mail and the webhook say it.
 */

/** A line the refund marked refunded, with what it ended. */
export interface RefundedLine {
  line: OrderLineRow;
  ended: EndedItem[];
}

/**
 * Marks the order's lines `lineIds` refunded (those not refunded yet), ends what each bought and
 * records it, releases their holds, and makes the order `refunded` when no line is left; all in
 * the caller's transaction, which must hold the order's row lock. Lines refunded before are left
 * alone, so a repeat does nothing. `now` decides which weeks and days are still to come.
 */
export async function refundLines(trx: Db, order: { id: number }, lineIds: number[], now: Date): Promise<RefundedLine[]> {
  const lines: OrderLineRow[] = await trx('order_lines')
    .where({ order_id: order.id })
    .whereIn('id', lineIds)
    .whereNull('refunded_at')
    .update({ refunded_at: trx.fn.now() })
    .returning('*');
  const refunded: RefundedLine[] = [];
  for (const line of lines.sort((a, b) => a.position - b.position)) {
    await releaseLineHolds(trx, line.id);
    const ended = await endLine(trx, line, now);
    await trx('order_lines')
      .where({ id: line.id })
      .update({ ended: JSON.stringify(ended) as unknown as EndedItem[] });
    refunded.push({ line: { ...line, ended }, ended });
  }
  const left = await trx('order_lines').where({ order_id: order.id }).whereNull('refunded_at').first('id');
  if (!left) await trx('orders').where({ id: order.id }).update({ status: 'refunded', attention_reason: null, updated_at: trx.fn.now() });
  return refunded;
}

type Ender = (trx: Db, line: OrderLineRow & { listing_id: number }, now: Date) => Promise<EndedFact[]>;

/** What one refunded line ended, in words too. */
async function endLine(trx: Db, line: OrderLineRow, now: Date): Promise<EndedItem[]> {
  const end = ENDERS[line.product];
  if (!end || line.listing_id === null) return [];
  const withListing = line as OrderLineRow & { listing_id: number };
  const items = await end(trx, withListing, now);
  return items.map((fact) => ({ ...fact, listing_id: withListing.listing_id, text: endedText(fact, line) }));
}

const today = (now: Date) => now.toISOString().slice(0, 10);

const ENDERS: Record<string, Ender> = {
  async featured(trx, line, now) {
    const rows = await trx('featured_placements')
      .where({ order_line_id: line.id })
      .where('week_start', '>=', isoWeekStart(now))
      .delete()
      .returning('week_start');
    const weeks = rows.map((r) => r.week_start).sort();
    return weeks.length ? [{ kind: 'featured', weeks }] : [];
  },
  async categories(trx, line) {
    const rows = await trx('category_placements').where({ order_line_id: line.id }).delete().returning('category');
    const categories = rows.map((r) => r.category).sort();
    return categories.length ? [{ kind: 'categories', categories }] : [];
  },
  async billboard(trx, line, now) {
    const rows = await trx('billboard_days').where({ order_line_id: line.id }).where('day', '>=', today(now)).delete().returning('day');
    const days = rows.map((r) => r.day).sort();
    return days.length ? [{ kind: 'billboard', days }] : [];
  },
  async unlock_section(trx, line) {
    // Unlocking and marking the line fulfilled are one transaction: an unfulfilled line unlocked nothing.
    if (!line.fulfilled_at) return [];
    const section = line.options.section as string;
    const listing = await trx('listings').where({ id: line.listing_id }).forUpdate().first('unlocked_sections');
    if (!(listing?.unlocked_sections as string[] | undefined)?.includes(section)) return [];
    if (await otherPaidLine(trx, line, section)) return [{ kind: 'section_kept', section }];
    await trx('listings')
      .where({ id: line.listing_id })
      .update({ unlocked_sections: trx.raw('array_remove(unlocked_sections, ?)', [section]), updated_at: trx.fn.now() });
    return [{ kind: 'section', section }];
  },
  async launch(trx, line) {
    const listing = await trx('listings').where({ id: line.listing_id }).forUpdate().first('status', 'plan', 'launch_week');
    if (!listing) return [];
    if (listing.status === 'live') return line.fulfilled_at ? [{ kind: 'still_live' }] : [];
    const slot = await trx('launch_slots').where({ listing_id: line.listing_id }).first('kind');
    // Booked by a paid launch (this line's, unless another paid launch line of the listing is still standing).
    if (listing.status !== 'scheduled' || listing.plan !== 'paid' || slot?.kind !== 'paid') return [];
    if (await otherPaidLine(trx, line)) return [];
    // Back to where the owner chooses how to launch; the listing's flow finds it no longer scheduled and ends.
    await releaseSlot(trx, line.listing_id);
    await trx('listings')
      .where({ id: line.listing_id })
      .update({ status: 'draft', plan: null, launch_week: null, updated_at: trx.fn.now() });
    return [{ kind: 'launch', week: listing.launch_week }];
  },
};

/** Another fulfilled, unrefunded line of the same product and listing (of any order), for `section` when given. */
async function otherPaidLine(trx: Db, line: OrderLineRow, section?: string): Promise<boolean> {
  const query = trx('order_lines')
    .where({ product: line.product, listing_id: line.listing_id })
    .whereNot({ id: line.id })
    .whereNotNull('fulfilled_at')
    .whereNull('refunded_at');
  if (section !== undefined) query.whereRaw(`options->>'section' = ?`, [section]);
  return (await query.first('id')) !== undefined;
}

/** What the `order.refunded` webhook says ended: each item with its line's position and product. */
export function endedForWebhook(refunded: RefundedLine[]): ({ line: number; product: string } & EndedItem)[] {
  return refunded.flatMap(({ line, ended }) => ended.map((item) => ({ line: line.position, product: line.product, ...item })));
}
