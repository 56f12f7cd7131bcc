import type { Db } from '../../db/knex.ts';
import { conflict } from '../../errors/errors.ts';
import { queueMail } from '../../mail/outbox.ts';
import { stoppableMails } from '../mail-preferences/stoppable-mail.ts';
import { isStopped } from '../mail-preferences/stops.ts';
import { readSites } from '../sites/sites.ts';
import { weekOfText } from '../time/week-words.ts';
import { addWeeks, isoWeekLabel } from '../../workflows/contracts/weeks.ts';
import { emitListingEvent } from '../webhooks/emit.ts';

/** Owners of this many top listings are told their place. */
const TOLD_TOP = 3;

export interface FreezeOutcome {
  /** Rows of the week in weekly_results after this call (same on every repeat). */
  results: number;
  /** Rows this call wrote (0 on a repeat). */
  inserted: number;
}

/**
 * Freezes a finished week of a site into `weekly_results`: every live listing launched that week
 * with its rank, score (discounted votes count 0), removed and discounted votes. Once frozen, a repeat writes nothing (one statement,
 * skipped when the week has rows; concurrent runs collide on the primary key), so the frozen
 * ranking never changes even if votes are voided later.
 */
export async function freezeWeek(db: Db, siteId: number, weekStart: string, now: Date): Promise<FreezeOutcome> {
  if (Date.parse(`${addWeeks(weekStart, 1)}T00:00:00Z`) > now.getTime()) {
    throw conflict('week_not_over', `The week ${isoWeekLabel(weekStart)} is not over yet.`);
  }
  const { rowCount } = await db.raw(
    `INSERT INTO weekly_results (site_id, week, listing_id, rank, score, votes_removed, votes_discounted)
     SELECT l.site_id, l.launch_week, l.id, row_number() OVER (ORDER BY l.week_votes DESC, l.id), l.week_votes,
       (SELECT count(*) FROM voided_votes x WHERE x.listing_id = l.id AND x.in_launch_week),
       (SELECT count(*) FROM votes d WHERE d.listing_id = l.id AND d.discount_reason IS NOT NULL)
     FROM listings l
     WHERE l.site_id = :siteId AND l.launch_week = :weekStart AND l.status = 'live'
       AND NOT EXISTS (SELECT 1 FROM weekly_results r WHERE r.site_id = :siteId AND r.week = :weekStart)
     ON CONFLICT DO NOTHING`,
    { siteId, weekStart },
  );
  const [{ count }] = await db('weekly_results').where({ site_id: siteId, week: weekStart }).count({ count: '*' });
  return { results: Number(count), inserted: rowCount ?? 0 };
}

interface TopListing {
  listing_id: number;
  rank: number;
  score: number;
  name: string;
  slug: string;
  site_id: number;
  owner_id: number;
  email: string;
  email_verified_at: Date | null;
}

/** Dedupe key of the notification and the mail telling an owner a week's place. */
export const weeklyResultKey = (siteId: number, weekStart: string, listingId: number) =>
  `weekly-result:${siteId}:${weekStart}:${listingId}`;

/**
 * Tells the owners of a frozen week's top three (with at least one vote) their place: an in-app
 * notification each and a mail to a confirmed address, in one transaction. Safe to repeat (both
 * are unique per listing and week). Returns the outbox rows to deliver.
 */
export async function tellTopOwners(
  db: Db,
  siteId: number,
  weekStart: string,
  baseUrl: string,
): Promise<{ told: number; mailIds: number[] }> {
  const site = (await readSites(db)).find((s) => s.id === siteId)?.name;
  return db.transaction(async (trx) => {
    const top: TopListing[] = await trx('weekly_results as r')
      .join('listings as l', 'l.id', 'r.listing_id')
      .join('users as u', 'u.id', 'l.owner_id')
      .where({ 'r.site_id': siteId, 'r.week': weekStart })
      .andWhere('r.rank', '<=', TOLD_TOP)
      .andWhere('r.score', '>', 0)
      .orderBy('r.rank')
      .select('r.listing_id', 'r.rank', 'r.score', 'l.name', 'l.slug', 'l.site_id', 'l.owner_id', 'u.email', 'u.email_verified_at');
    const keys: string[] = [];
    const stoppable = await stoppableMails(trx, baseUrl);
    for (const row of top) {
      const key = weeklyResultKey(siteId, weekStart, row.listing_id);
      const message = resultMessage(row, weekStart, baseUrl, site);
      await trx('notifications')
        .insert({
          user_id: row.owner_id,
          kind: 'weekly_result',
          listing_id: row.listing_id,
          title: message.subject,
          body: message.text,
          dedupe_key: key,
        })
        .onConflict('dedupe_key')
        .ignore();
      const stop = { userId: row.owner_id, kind: 'weekly_results', listingId: null } as const;
      if (!row.email_verified_at || (await isStopped(trx, stop))) continue;
      await queueMail(trx, stoppable(stop, { to: row.email, dedupeKey: key, ...message }));
      keys.push(key);
    }
    const mailIds: number[] = keys.length ? await trx('mail_outbox').whereIn('dedupe_key', keys).orderBy('id').pluck('id') : [];
    // Every owner of a listing of the week hears its place by webhook (not just the top three).
    const ranked = await trx('weekly_results')
      .where({ site_id: siteId, week: weekStart })
      .orderBy('rank')
      .select('listing_id', 'rank', 'score');
    for (const r of ranked) {
      await emitListingEvent(trx, baseUrl, 'weekly.result', r.listing_id, `weekly.result:${siteId}:${weekStart}:${r.listing_id}`, {
        result: { week: isoWeekLabel(weekStart), rank: r.rank, score: r.score, of: ranked.length },
      });
    }
    return { told: top.length, mailIds };
  });
}

function resultMessage(row: TopListing, weekStart: string, baseUrl: string, site: string | undefined) {
  const week = `the ${weekOfText(weekStart)}`;
  const votes = `${row.score} ${row.score === 1 ? 'vote' : 'votes'}`;
  return {
    subject: `${row.name} finished #${row.rank} in ${week}`,
    text:
      `${row.name} finished #${row.rank} in ${week}${site ? ` on ${site}` : ''} with ${votes}. The results are final.\n\n` +
      `Leaderboard: ${baseUrl}/launches?week=${weekStart}\nYour listing: ${baseUrl}/listings/${row.slug}\n`,
  };
}
