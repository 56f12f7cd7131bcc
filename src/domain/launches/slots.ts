import type { Db } from '../../db/knex.ts';
import { conflict } from '../../errors/errors.ts';
import { paidTakenByOthers } from './paid-capacity.ts';
import { addWeeks, isoWeekLabel } from '../../workflows/contracts/weeks.ts';

/** Free launches use the queue; paid launches have their own, smaller, capacity per week. */
export type SlotKind = 'free' | 'paid';

/** How far ahead the free queue looks for a week with room before refusing. */
const MAX_QUEUE_WEEKS = 104;

export interface Slot {
  site_id: number;
  week_start: string;
  kind: SlotKind;
}

/**
 * Locks a week's row for the rest of the transaction, creating it first. Every booking of the
 * week counts and inserts under this lock, so two bookings can never both see the last slot.
 */
export async function lockWeek(trx: Db, siteId: number, monday: string): Promise<void> {
  await trx('launch_weeks').insert({ site_id: siteId, week_start: monday }).onConflict(['site_id', 'week_start']).ignore();
  await trx('launch_weeks').where({ site_id: siteId, week_start: monday }).forUpdate().first('site_id');
}

async function takenCount(trx: Db, siteId: number, monday: string, kind: SlotKind): Promise<number> {
  const [{ count }] = await trx('launch_slots').where({ site_id: siteId, week_start: monday, kind }).count({ count: '*' });
  return Number(count);
}

/**
 * Books the earliest week from `from` on with a free slot left (inside the caller's transaction,
 * which holds the listing's row lock). Weeks are locked in ascending order, so concurrent
 * bookings never deadlock. Returns the Monday.
 */
export async function bookFreeSlot(trx: Db, listing: { id: number; site_id: number }, from: string, perWeek: number): Promise<string> {
  if (perWeek > 0) {
    for (let i = 0; i < MAX_QUEUE_WEEKS; i++) {
      const monday = addWeeks(from, i);
      await lockWeek(trx, listing.site_id, monday);
      if ((await takenCount(trx, listing.site_id, monday, 'free')) >= perWeek) continue;
      await trx('launch_slots').insert({ listing_id: listing.id, site_id: listing.site_id, week_start: monday, kind: 'free' });
      return monday;
    }
  }
  throw conflict(
    'free_queue_full',
    `No week in the next ${MAX_QUEUE_WEEKS} has a free launch slot left; a paid launch needs no slot in the queue.`,
  );
}

/**
 * Takes a paid slot in the given week (inside the caller's transaction); 409 when the week is full.
 * Slots held by other listings' checkouts count as taken: a paid order books its own hold's place.
 */
export async function takePaidSlot(trx: Db, listing: { id: number; site_id: number }, monday: string, perWeek: number): Promise<void> {
  await lockWeek(trx, listing.site_id, monday);
  if ((await paidTakenByOthers(trx, listing.site_id, monday, listing.id)) >= perWeek) throw weekFull(monday, perWeek);
  await trx('launch_slots').insert({ listing_id: listing.id, site_id: listing.site_id, week_start: monday, kind: 'paid' });
}

/** 409 launch_week_full: every paid slot of the week is taken or held by others. */
export const weekFull = (monday: string, perWeek: number) =>
  conflict(
    'launch_week_full',
    perWeek === 0
      ? `${isoWeekLabel(monday)} has no paid launch slots any more; choose another week.`
      : `All ${perWeek} paid launch slots of ${isoWeekLabel(monday)} are taken or held; choose another week.`,
  );

/** Gives a listing's slot back (its week gets the room again). */
export async function releaseSlot(trx: Db, listingId: number): Promise<void> {
  await trx('launch_slots').where({ listing_id: listingId }).delete();
}

/** The listing's slot, if it holds one. */
export async function slotOf(db: Db, listingId: number): Promise<Slot | undefined> {
  return db('launch_slots').where({ listing_id: listingId }).first('site_id', 'week_start', 'kind');
}

/** 1-based position of each listing within its launch week (order of booking), by listing id. */
export async function queuePositions(db: Db, listingIds: number[]): Promise<Map<number, number>> {
  if (listingIds.length === 0) return new Map();
  const rows: { listing_id: number; position: number }[] = await db
    .with('mine', (q) => q.from('launch_slots').whereIn('listing_id', listingIds).distinct('site_id', 'week_start'))
    .from('launch_slots as s')
    .join('mine as m', function sameWeek() {
      this.on('m.site_id', 's.site_id').andOn('m.week_start', 's.week_start');
    })
    .select('s.listing_id', db.raw('row_number() OVER (PARTITION BY s.site_id, s.week_start ORDER BY s.id)::int AS position'));
  const wanted = new Set(listingIds);
  return new Map(rows.filter((r) => wanted.has(r.listing_id)).map((r) => [r.listing_id, r.position]));
}
