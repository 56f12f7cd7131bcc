import { HOUR_MS, type Detection, type VoteWeek } from './types.ts';

/** Votes a listing may get in an hour whatever its traffic. */
export const BURST_MIN_VOTES = 10;
/** Votes from one referrer (or none) in a burst hour before they are flagged. */
export const BURST_MIN_GROUP = 5;

/**
 * `burst`: a listing's votes arriving far faster than its traffic explains. Every vote is cast
 * with a Vote button that was shown to the account, so an hour in which a listing gets more than
 * BURST_MIN_VOTES votes and more votes than its button was shown in that hour and the hour before
 * is a burst. In a burst hour, the votes of each referrer host (no referrer is one group) with at
 * least BURST_MIN_GROUP votes are flagged; scattered votes from other referrers count.
 */
export function detectBursts(week: VoteWeek): Detection[] {
  const views = new Map<string, number>();
  for (const v of week.views) views.set(`${v.listingId}:${v.hour}`, (views.get(`${v.listingId}:${v.hour}`) ?? 0) + v.views);
  const hours = new Map<string, { listingId: number; hour: number; votes: { userId: number; referrer: string }[] }>();
  for (const v of week.votes) {
    const hour = v.at - (((v.at % HOUR_MS) + HOUR_MS) % HOUR_MS);
    const key = `${v.listingId}:${hour}`;
    const bucket = hours.get(key) ?? { listingId: v.listingId, hour, votes: [] };
    bucket.votes.push({ userId: v.userId, referrer: v.referrerHost ?? '' });
    hours.set(key, bucket);
  }
  const out: Detection[] = [];
  const ordered = [...hours.values()].sort((a, b) => a.listingId - b.listingId || a.hour - b.hour);
  for (const { listingId, hour, votes } of ordered) {
    const shown = (views.get(`${listingId}:${hour}`) ?? 0) + (views.get(`${listingId}:${hour - HOUR_MS}`) ?? 0);
    if (votes.length <= BURST_MIN_VOTES || votes.length <= shown) continue;
    const byReferrer = new Map<string, number[]>();
    for (const v of votes) byReferrer.set(v.referrer, [...(byReferrer.get(v.referrer) ?? []), v.userId]);
    for (const [referrer, users] of [...byReferrer.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
      if (users.length < BURST_MIN_GROUP) continue;
      const from = referrer === '' ? 'without a referrer' : `from ${referrer}`;
      const detail = `${votes.length} votes in the hour from ${new Date(hour).toISOString()} (${users.length} ${from}) while the Vote button was shown ${shown} times`;
      for (const userId of users.sort((a, b) => a - b)) out.push({ listingId, userId, reason: 'burst', detail });
    }
  }
  return out;
}
