import type { Db } from '../../db/knex.ts';
import { AppError, conflict, notFound, unprocessable, validationFailed } from '../../errors/errors.ts';
import type { WorkflowStarter } from '../ports.ts';
import type { ListingRow } from '../listings/listings.ts';
import { readLaunchSettings } from './launch-settings.ts';
import { paidTakenByOthers } from './paid-capacity.ts';
import { releaseSlot, takePaidSlot, weekFull } from './slots.ts';
import { addWeeks, isMonday, isoWeekStart } from '../../workflows/contracts/weeks.ts';
import { emitListingEvent } from '../webhooks/emit.ts';

/** How far ahead a paid launch may be booked. */
const MAX_WEEKS_AHEAD = 52;

export interface PaidLaunchResult {
  status: 'live' | 'scheduled';
  launch_week: string | null;
}

/**
 * A paid launch of a listing (checkout fulfilment calls it): `week` null (or this
 * week's Monday) → live now; a later Monday → scheduled for it. No badge or profile needed. It takes
 * a paid slot under the week's row lock, gives back a free slot the listing held, and re-aims the
 * `listing:{id}` workflow (signal `paidLaunch`, started if need be). Idempotent: a second call for
 * the same listing and week changes nothing (it signals again, which is harmless).
 */
export async function launchPaid(
  deps: { db: Db; workflows: WorkflowStarter; baseUrl?: string },
  listingId: number,
  week: string | null,
  now: Date,
): Promise<PaidLaunchResult> {
  const target = targetWeek(week, now);
  const { result, siteKey } = await deps.db.transaction(async (trx) => {
    const row: (ListingRow & { site_key: string }) | undefined = await trx('listings as l')
      .join('sites as s', 's.id', 'l.site_id')
      .where('l.id', listingId)
      .forUpdate('l')
      .first('l.*', 's.key as site_key');
    if (!row) throw notFound(`Listing ${listingId}`);
    const refusal = await paidLaunchRefusal(trx, row, week, now);
    if (refusal) throw refusal;
    const booked = await bookPaid(trx, row, target, isoWeekStart(now));
    // The owner's webhooks: once per listing and week, however often fulfilment repeats this.
    const type = booked.status === 'live' ? 'listing.live' : 'listing.scheduled';
    await emitListingEvent(trx, deps.baseUrl ?? '', type, listingId, `${type}:${listingId}:${booked.launch_week}`);
    return { result: booked, siteKey: row.site_key };
  });
  await deps.workflows.paidLaunch(listingId, siteKey, result.launch_week);
  return result;
}

/** The Monday to launch in: this week's for null or this week; 400/422 for anything else odd. */
function targetWeek(week: string | null, now: Date): string {
  const current = isoWeekStart(now);
  if (week === null) return current;
  if (!isMonday(week)) throw validationFailed([{ path: 'week', message: 'Must be a Monday as YYYY-MM-DD' }]);
  if (week < current) throw unprocessable('launch_week_past', `The week of ${week} is over; choose this week or a later one.`);
  if (week > addWeeks(current, MAX_WEEKS_AHEAD))
    throw unprocessable('launch_week_too_far', `Paid launches can be booked at most ${MAX_WEEKS_AHEAD} weeks ahead.`);
  return week;
}

/**
 * Why a paid launch of the listing in `week` cannot be had now, as the error booking it throws;
 * null when it can (or is booked already). One rule for both askers: launchPaid (fulfilment),
 * whose takePaidSlot counts again under the week's lock, and the pay page before it charges.
 */
export async function paidLaunchRefusal(
  db: Db,
  row: Pick<ListingRow, 'id' | 'site_id' | 'status' | 'plan'>,
  week: string | null,
  now: Date,
): Promise<AppError | null> {
  let target: string;
  try {
    target = targetWeek(week, now);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  if (row.status === 'unlisted') return conflict('listing_unlisted', 'This listing is unlisted; it cannot launch.');
  if (row.status === 'live') return null;
  const slot = await db('launch_slots').where({ listing_id: row.id }).first('kind', 'week_start');
  if (row.plan === 'paid' && slot?.kind === 'paid' && slot.week_start === target) return null;
  const { paid_slots_per_week: perWeek } = await readLaunchSettings(db, row.site_id);
  return (await paidTakenByOthers(db, row.site_id, target, row.id)) >= perWeek ? weekFull(target, perWeek) : null;
}

/** Books the paid launch paidLaunchRefusal allowed (under the listing's row lock). */
async function bookPaid(trx: Db, row: ListingRow, target: string, current: string): Promise<PaidLaunchResult> {
  // Already launched (or fulfilled before): a paid launch has nothing left to do.
  if (row.status === 'live') {
    if (row.plan !== 'paid') await trx('listings').where({ id: row.id }).update({ plan: 'paid', updated_at: trx.fn.now() });
    return { status: 'live', launch_week: row.launch_week };
  }
  const slot = await trx('launch_slots').where({ listing_id: row.id }).first('kind', 'week_start');
  if (row.plan === 'paid' && slot?.kind === 'paid' && slot.week_start === target) {
    return { status: row.status as PaidLaunchResult['status'], launch_week: row.launch_week };
  }
  const settings = await readLaunchSettings(trx, row.site_id);
  await releaseSlot(trx, row.id);
  await takePaidSlot(trx, row, target, settings.paid_slots_per_week);
  const live = target === current;
  const [updated] = await trx('listings')
    .where({ id: row.id })
    .update({
      plan: 'paid',
      status: live ? 'live' : 'scheduled',
      launch_week: target,
      ...(live ? { live_at: trx.fn.now() } : {}),
      updated_at: trx.fn.now(),
    })
    .returning(['status', 'launch_week']);
  return { status: live ? 'live' : 'scheduled', launch_week: updated!.launch_week };
}
