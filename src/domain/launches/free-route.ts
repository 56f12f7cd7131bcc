import type { Db } from '../../db/knex.ts';
import { conflict } from '../../errors/errors.ts';
import { profileFacts } from '../founders/profiles.ts';
import { profileMissing } from '../founders/publish-rules.ts';
import { getOwnedListing, type ListingRow } from '../listings/listings.ts';
import { readLaunchSettings } from './launch-settings.ts';
import { WAITING_STATUSES } from './owner-launch.ts';
import { tellOwner } from './owner-notices.ts';
import { emitListingEvent } from '../webhooks/emit.ts';
import { bookFreeSlot } from './slots.ts';
import { earliestFreeWeek } from '../../workflows/contracts/weeks.ts';
import { dayText, weekOfText } from '../time/week-words.ts';

/**
 * Chooses the free plan for one of the owner's listings (before the badge check that follows).
 * A draft or waiting listing, free or without a plan; already queued or live: nothing changes.
 */
export async function chooseFreePlan(db: Db, ownerId: number, listingId: number): Promise<ListingRow> {
  const listing = await getOwnedListing(db, ownerId, listingId);
  if (listing.plan === 'paid') throw conflict('paid_launch_chosen', 'This listing has a paid launch; the free queue is not needed.');
  if (listing.plan === 'free' && (listing.status === 'scheduled' || listing.status === 'live')) return listing;
  if (!WAITING_STATUSES.has(listing.status)) {
    throw conflict('listing_not_draft', `The free plan can be chosen for a listing in draft, not one that is ${listing.status}.`);
  }
  const [row] = await db('listings')
    .where({ id: listingId, owner_id: ownerId })
    .update({ plan: 'free', updated_at: db.fn.now() })
    .returning('*');
  return row;
}

/**
 * Moves a waiting free listing on as far as it can go now: founder profile
 * incomplete → awaiting_profile; badge not confirmed present by its last check → awaiting_badge;
 * both met → a slot in the earliest week at least `free_queue_weeks` out that has one left,
 * status scheduled. Runs under the listing's row lock; anything else is returned unchanged.
 */
export async function advanceFreeListing(db: Db, baseUrl: string, listingId: number, now: Date): Promise<ListingRow | undefined> {
  return db.transaction(async (trx) => {
    const row: ListingRow | undefined = await trx('listings').where({ id: listingId }).forUpdate().first();
    if (!row || row.plan !== 'free' || !WAITING_STATUSES.has(row.status)) return row;
    const [facts, badge] = await Promise.all([
      row.owner_id === null ? null : profileFacts(trx, row.owner_id),
      trx('listing_badges').where({ listing_id: listingId }).first('status'),
    ]);
    let changes: Partial<ListingRow>;
    if (profileMissing(facts, baseUrl).length > 0) changes = { status: 'awaiting_profile' };
    else if (badge?.status !== 'present') changes = { status: 'awaiting_badge' };
    else {
      const settings = await readLaunchSettings(trx, row.site_id);
      const week = await bookFreeSlot(trx, row, earliestFreeWeek(now, settings.free_queue_weeks), settings.free_slots_per_week);
      changes = { status: 'scheduled', launch_week: week };
      await tellOwner(trx, baseUrl, listingId, {
        dedupeKey: `launch-scheduled:${listingId}:${week}`,
        subject: `launching in the ${weekOfText(week)}`,
        message: `Your badge and founder profile are in place: ${row.name} launches in the ${weekOfText(week)} (Monday ${dayText(week)}, 00:00 UTC).`,
      });
    }
    if (changes.status === row.status && changes.launch_week === undefined) return row;
    const [updated] = await trx('listings')
      .where({ id: listingId })
      .update({ ...changes, updated_at: trx.fn.now() })
      .returning('*');
    if (changes.status === 'scheduled') {
      await emitListingEvent(trx, baseUrl, 'listing.scheduled', listingId, `listing.scheduled:${listingId}:${changes.launch_week}`);
    }
    return updated;
  });
}
