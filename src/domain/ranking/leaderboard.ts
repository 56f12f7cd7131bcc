import type { Db } from '../../db/knex.ts';
import { isoWeekLabel, isoWeekStart } from './weeks.ts';

/**
 * This week's community leaderboard of a site: live listings launched this ISO week, ranked by
 * the votes cast during the week (ties: earlier listing first). Empty is a valid answer.
 */
export async function communityLeaderboard(db: Db, siteId: number, now = new Date()) {
  const weekStart = isoWeekStart(now);
  const rows = await db('listings as l')
    .leftJoin('votes as v', function joinWeekVotes() {
      this.on('v.listing_id', 'l.id')
        .andOn('v.created_at', '>=', db.raw('?::date', [weekStart]))
        .andOn('v.created_at', '<', db.raw("?::date + interval '7 days'", [weekStart]));
    })
    .where({ 'l.site_id': siteId, 'l.status': 'live', 'l.launch_week': weekStart })
    .groupBy('l.id')
    .orderByRaw('count(v.user_id) DESC, l.id')
    .limit(100)
    .select('l.id', 'l.slug', 'l.name', 'l.url', 'l.headline', 'l.logo_url', db.raw('count(v.user_id)::int AS score'));
  return {
    week: isoWeekLabel(weekStart),
    week_start: weekStart,
    formula: 'score = votes cast by signed-in accounts during the listing’s launch week (one per account); ties go to the earlier listing',
    items: rows.map((r, i) => ({ rank: i + 1, ...r })),
  };
}
