import type { Db } from '../../db/knex.ts';
import { soldOut, type FieldError } from '../../errors/errors.ts';
import { lockWeek } from '../launches/slots.ts';
import { readLaunchSettings } from '../launches/launch-settings.ts';
import { nextPaidWeekWithRoom, paidTakenByOthers } from '../launches/paid-capacity.ts';
import { isoWeekLabel, isoWeekStart } from '../../workflows/contracts/weeks.ts';
import { firstFreeStart, lockBillboard, takenDays } from './billboard-capacity.ts';
import type { ResolvedItem } from './items.ts';
import { MAX_WEEKS_AHEAD, addDays } from './product-options.ts';

/**
 * Capacity held by orders, so nothing is sold twice: create_checkout holds what its items need under the same
 * lock a booking takes, so the last paid slot of a week (or a billboard day) is sold once. A
 * hold counts while its order can still be paid, or is paid and its line not yet booked;
 * fulfilment turns it into the booking, expiry and refunds delete it.
 */

/** What one order item needs held: a week's paid launch slot, or billboard days. */
type Need =
  | { kind: 'launch'; index: number; listingId: number; week: string }
  | { kind: 'billboard'; index: number; start: string; days: number };

/** The capacity the items need; a launch without a week is for this week (it goes live at once). */
function needsOf(items: Pick<ResolvedItem, 'product' | 'listing_id' | 'options'>[], now: Date): Need[] {
  return items.flatMap((item, index): Need[] => {
    if (item.product === 'launch' && item.listing_id !== null) {
      const week = typeof item.options.week === 'string' ? item.options.week : isoWeekStart(now);
      return [{ kind: 'launch', index, listingId: item.listing_id, week }];
    }
    if (item.product === 'billboard')
      return [{ kind: 'billboard', index, start: item.options.start_date as string, days: item.options.days as number }];
    return [];
  });
}

interface Refusal {
  error: FieldError;
  available: Record<string, unknown>;
}

/** Why a launch cannot have its week's paid slot (every one taken or held by another listing), or null. */
async function launchRefusal(db: Db, siteId: number, need: Extract<Need, { kind: 'launch' }>, now: Date): Promise<Refusal | null> {
  const { paid_slots_per_week: perWeek } = await readLaunchSettings(db, siteId);
  if ((await paidTakenByOthers(db, siteId, need.week, need.listingId)) < perWeek) return null;
  const last = addDays(isoWeekStart(now), MAX_WEEKS_AHEAD * 7);
  const next = await nextPaidWeekWithRoom(db, siteId, need.week, last, need.listingId, perWeek);
  const path = `items.${need.index}.options.week`;
  const full = `No paid launch slot is left in ${isoWeekLabel(need.week)} (${perWeek} a week, all taken or held by pending checkouts)`;
  const message = next
    ? `${full}; the next week with room is ${isoWeekLabel(next)} (${next})`
    : `${full}; no week up to ${isoWeekLabel(last)} has room`;
  return { error: { path, message }, available: { path, week: next && isoWeekLabel(next), week_start: next } };
}

/** Why billboard days cannot be had (some booked or held), with the first free start date. */
async function billboardRefusal(db: Db, siteId: number, need: Extract<Need, { kind: 'billboard' }>): Promise<Refusal | null> {
  const taken = await takenDays(db, siteId, need.start, addDays(need.start, need.days - 1));
  if (taken.size === 0) return null;
  const free = await firstFreeStart(db, siteId, need.start, need.days);
  const path = `items.${need.index}.options.start_date`;
  const message = `These days overlap a booked or held billboard; the first free start date is ${free}`;
  return { error: { path, message }, available: { path, start_date: free } };
}

async function refusalsOf(db: Db, siteId: number, needs: Need[], now: Date): Promise<Refusal[]> {
  const out: Refusal[] = [];
  for (const need of needs) {
    const refusal = need.kind === 'launch' ? await launchRefusal(db, siteId, need, now) : await billboardRefusal(db, siteId, need);
    if (refusal) out.push(refusal);
  }
  return out;
}

const throwSoldOut = (refused: Refusal[]) => {
  if (refused.length)
    throw soldOut(
      refused.map((r) => r.error),
      refused.map((r) => r.available),
    );
};

/** quote_order: whether there is room for the items now (no lock, nothing held); 409 sold_out if not. */
export async function checkRoom(db: Db, siteId: number, items: ResolvedItem[], now: Date): Promise<void> {
  throwSoldOut(await refusalsOf(db, siteId, needsOf(items, now), now));
}

/**
 * create_checkout, inside the transaction that inserts the order: locks every week the items need
 * (ascending, as bookings do) then the site's billboard, checks the room left and holds it for
 * the order's lines (`lineIds` by position). 409 sold_out rolls the order back.
 */
export async function holdCapacity(trx: Db, siteId: number, orderId: number, lineIds: number[], items: ResolvedItem[], now: Date) {
  const needs = needsOf(items, now);
  if (!needs.length) return;
  const weeks = [...new Set(needs.flatMap((n) => (n.kind === 'launch' ? [n.week] : [])))].sort();
  for (const week of weeks) await lockWeek(trx, siteId, week);
  if (needs.some((n) => n.kind === 'billboard')) await lockBillboard(trx, siteId);
  const refused: Refusal[] = [];
  for (const need of needs) {
    // One at a time: an item's hold counts against the next item of the same order.
    const [refusal] = await refusalsOf(trx, siteId, [need], now);
    if (refusal) refused.push(refusal);
    else await trx('capacity_holds').insert(holdRows(siteId, orderId, lineIds[need.index]!, need));
  }
  throwSoldOut(refused);
}

function holdRows(siteId: number, orderId: number, lineId: number, need: Need) {
  const base = { site_id: siteId, order_id: orderId, order_line_id: lineId, kind: need.kind };
  if (need.kind === 'launch') return [{ ...base, listing_id: need.listingId, week_start: need.week }];
  return Array.from({ length: need.days }, (_, i) => ({ ...base, day: addDays(need.start, i) }));
}

/** Gives back what an order holds (expired, canceled, refunded). */
export async function releaseHolds(trx: Db, orderId: number): Promise<void> {
  await trx('capacity_holds').where({ order_id: orderId }).delete();
}

/** Gives back what one line holds (booked, or refunded). */
export async function releaseLineHolds(trx: Db, lineId: number): Promise<void> {
  await trx('capacity_holds').where({ order_line_id: lineId }).delete();
}
