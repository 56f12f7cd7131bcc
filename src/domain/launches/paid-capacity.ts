import type { Db } from '../../db/knex.ts';
import { activeHolds } from '../orders/active-holds.ts';
import { addWeeks } from '../../workflows/contracts/weeks.ts';

/**
 * Paid launch capacity of a week: its paid slots (booked) and the slots held by checkouts that can
 * still be paid, so a slot is never sold twice. Counted per listing: a listing's own slot or hold in the week is one
 * place however many orders name it, and never stands in its own way.
 */

/** The listings other than `listingId` with a paid slot or an active hold in the week. */
export async function paidTakenByOthers(db: Db, siteId: number, monday: string, listingId: number): Promise<number> {
  const booked = db('launch_slots')
    .where({ site_id: siteId, week_start: monday, kind: 'paid' })
    .whereNot('listing_id', listingId)
    .select('listing_id');
  const held = activeHolds(db, siteId)
    .where({ 'h.kind': 'launch', 'h.week_start': monday })
    .whereNot('h.listing_id', listingId)
    .select('h.listing_id');
  const [{ n }] = await db.from(booked.union(held).as('t')).count({ n: '*' });
  return Number(n);
}

/** The first week after `after`, up to `last`, with a paid slot `listingId` could take; null if none. */
export async function nextPaidWeekWithRoom(
  db: Db,
  siteId: number,
  after: string,
  last: string,
  listingId: number,
  perWeek: number,
): Promise<string | null> {
  for (let week = addWeeks(after, 1); week <= last; week = addWeeks(week, 1)) {
    if ((await paidTakenByOthers(db, siteId, week, listingId)) < perWeek) return week;
  }
  return null;
}

/** Per week from `first` to `last`: listings holding a paid slot that is not booked yet in that week. */
export async function paidHeldByWeek(db: Db, siteId: number, first: string, last: string): Promise<Map<string, number>> {
  const rows: { week_start: string; held: number }[] = await activeHolds(db, siteId)
    .where('h.kind', 'launch')
    .whereBetween('h.week_start', [first, last])
    .whereNotExists(
      db('launch_slots as s')
        .whereRaw('s.listing_id = h.listing_id AND s.site_id = h.site_id AND s.week_start = h.week_start')
        .where('s.kind', 'paid'),
    )
    .groupBy('h.week_start')
    .select('h.week_start', db.raw('count(DISTINCT h.listing_id)::int AS held'));
  return new Map(rows.map((r) => [r.week_start, r.held]));
}
