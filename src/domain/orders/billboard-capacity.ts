import type { Db } from '../../db/knex.ts';
import { activeHolds } from './active-holds.ts';
import { addDays } from './product-options.ts';

/**
 * The billboard's days: one listing a day per site, booked (`billboard_days`) or held by a
 * checkout, so a day is never sold twice. Holding and booking days both happen under the site's billboard lock.
 */

// First key of the two-key advisory lock: the billboard's lock of a site (the second key).
const BILLBOARD_LOCK = 20_001;

/**
 * Serialises holding and booking billboard days of a site for the rest of the transaction. An
 * advisory lock, not a row lock: there is no row per day to lock before the day is booked.
 */
export async function lockBillboard(trx: Db, siteId: number): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock(?, ?)', [BILLBOARD_LOCK, siteId]);
}

/** Days from `from` to `to` (inclusive) booked or held by any line but `exceptLineId`. */
export async function takenDays(db: Db, siteId: number, from: string, to: string, exceptLineId = 0): Promise<Set<string>> {
  const booked = db('billboard_days')
    .where({ site_id: siteId })
    .whereBetween('day', [from, to])
    .whereNot('order_line_id', exceptLineId)
    .select<{ day: string }[]>(db.raw(`to_char(day, 'YYYY-MM-DD') AS day`));
  const held = activeHolds(db, siteId)
    .where('h.kind', 'billboard')
    .whereBetween('h.day', [from, to])
    .whereNot('h.order_line_id', exceptLineId)
    .select(db.raw(`to_char(h.day, 'YYYY-MM-DD') AS day`));
  const rows: { day: string }[] = await booked.union(held);
  return new Set(rows.map((r) => r.day));
}

/** The first date on or after `start` from which `days` consecutive days are neither booked nor held. */
export async function firstFreeStart(db: Db, siteId: number, start: string, days: number): Promise<string> {
  const taken = await takenDays(db, siteId, start, '9999-12-31');
  let candidate = start;
  for (let offset = 0; offset < days; offset++) {
    const day = addDays(candidate, offset);
    if (taken.has(day)) {
      candidate = addDays(day, 1);
      offset = -1;
    }
  }
  return candidate;
}
