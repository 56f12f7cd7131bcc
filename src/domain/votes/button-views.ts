import type { Db } from '../../db/knex.ts';
import { addWeeks, weekStartMs } from '../../workflows/contracts/weeks.ts';

/**
 * Counts one showing of a listing's Vote button to a signed-in account that has not voted yet,
 * per listing and hour, only while the listing's launch week runs: the traffic that can explain
 * its votes (the burst detector compares the two). Nothing about the viewer is kept.
 */
export async function countVoteButtonView(db: Db, listingId: number, launchWeek: string | null, now: Date): Promise<void> {
  const hour = voteButtonViewHour(launchWeek, now);
  if (!hour) return;
  await db('vote_button_views')
    .insert({ listing_id: listingId, hour, views: 1 })
    .onConflict(['listing_id', 'hour'])
    .merge({ views: db.raw('vote_button_views.views + 1') });
}

/** The hour a showing of the Vote button at `now` counts in; null outside the launch week (not counted). */
export function voteButtonViewHour(launchWeek: string | null, now: Date): Date | null {
  if (!launchWeek) return null;
  const t = now.getTime();
  if (t < weekStartMs(launchWeek) || t >= weekStartMs(addWeeks(launchWeek, 1))) return null;
  return viewHourOf(now);
}

/** The hour (its start) that views at `now` count in. */
export const viewHourOf = (now: Date): Date => new Date(now.getTime() - (now.getTime() % 3_600_000));

/**
 * countVoteButtonView for the listings `:shown` (distinct, each in its launch week at `:hour`)
 * that person `:u` neither voted for nor owns: a data-modifying CTE (named `shown_buttons`), so a
 * page with many Vote buttons counts them within the statement that reads the person's state.
 */
export const COUNT_SHOWN_VOTE_BUTTONS = `shown_buttons AS (
  INSERT INTO vote_button_views (listing_id, hour, views)
  SELECT l.id, :hour, 1 FROM listings l
  WHERE l.id = ANY(:shown) AND l.owner_id IS DISTINCT FROM :u
    AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.user_id = :u AND v.listing_id = l.id)
  ON CONFLICT (listing_id, hour) DO UPDATE SET views = vote_button_views.views + 1
  RETURNING listing_id)`;
