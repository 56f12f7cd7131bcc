import type { Db } from '../../db/knex.ts';
import { addWeeks, weekStartMs } from '../../workflows/contracts/weeks.ts';

/**
 * Counts one showing of a listing's Vote button to a signed-in account that has not voted yet,
 * per listing and hour, only while the listing's launch week runs: the traffic that can explain
 * its votes (the burst detector compares the two). Nothing about the viewer is kept.
 */
export async function countVoteButtonView(db: Db, listingId: number, launchWeek: string | null, now: Date): Promise<void> {
  if (!launchWeek) return;
  const t = now.getTime();
  if (t < weekStartMs(launchWeek) || t >= weekStartMs(addWeeks(launchWeek, 1))) return;
  const hour = new Date(t - (t % 3_600_000));
  await db('vote_button_views')
    .insert({ listing_id: listingId, hour, views: 1 })
    .onConflict(['listing_id', 'hour'])
    .merge({ views: db.raw('vote_button_views.views + 1') });
}
