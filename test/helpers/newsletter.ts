import { randomBytes } from 'node:crypto';
import type { Db } from '../../src/db/knex.ts';
import { readSiteByKey } from '../../src/domain/sites/sites.ts';
import { addWeeks, isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { insertLiveListing } from './listings.ts';

/** The site `key` (the default site is `main`). */
export async function siteNamed(db: Db, key = 'main') {
  const site = await readSiteByKey(db, key);
  if (!site) throw new Error(`no site ${key}`);
  return site;
}

/**
 * A closed week `weeksAgo` weeks back on `main`: live listings frozen into weekly_results in the
 * given order (rank 1 first, scores descending), and one listing scheduled for the week after.
 */
export async function closedWeek(
  db: Db,
  weeksAgo: number,
  names: string[],
): Promise<{ monday: string; listingIds: number[]; nextName: string }> {
  const site = await siteNamed(db);
  const monday = addWeeks(isoWeekStart(new Date()), -weeksAgo);
  const listingIds: number[] = [];
  for (const [i, name] of names.entries()) {
    const id = await insertLiveListing(db, {
      name,
      url: `https://${name.toLowerCase().replace(/\W+/g, '')}-${randomBytes(3).toString('hex')}.example/`,
    });
    await db('listings')
      .where({ id })
      .update({ launch_week: monday, headline: `${name} does things` });
    await db('weekly_results').insert({
      site_id: site.id,
      week: monday,
      listing_id: id,
      rank: i + 1,
      score: 10 * (names.length - i),
      votes_removed: 0,
      votes_discounted: 0,
    });
    listingIds.push(id);
  }
  const nextName = `Next ${randomBytes(3).toString('hex')}`;
  const next = await insertLiveListing(db, { name: nextName, url: `https://${nextName.replace(/\W+/g, '')}.example/` });
  await db('listings')
    .where({ id: next })
    .update({ status: 'scheduled', launch_week: addWeeks(monday, 1) });
  return { monday, listingIds, nextName };
}

/** `n` confirmed subscribers of `main`, oldest id first. */
export async function confirmedSubscribers(
  db: Db,
  n: number,
  tag = randomBytes(3).toString('hex'),
): Promise<{ id: number; email: string }[]> {
  const site = await siteNamed(db);
  const rows = Array.from({ length: n }, (_, i) => ({
    site_id: site.id,
    email: `reader-${tag}-${i}@example.com`,
    confirmed_at: new Date(),
  }));
  return db('newsletter_subscribers').insert(rows).returning(['id', 'email']);
}

/**
 * Features a listing in the week of `monday`. Only the placement matters here, so it is written
 * without its order (foreign keys off for the transaction: the test database's owner may).
 */
export async function insertFeatured(db: Db, listingId: number, monday: string): Promise<void> {
  const listing = (await db('listings').where({ id: listingId }).first('site_id'))!;
  await db.transaction(async (trx) => {
    await trx.raw('SET LOCAL session_replication_role = replica');
    await trx.raw(`INSERT INTO featured_placements (order_line_id, site_id, listing_id, week_start) VALUES (?, ?, ?, ?)`, [
      2_000_000_000 - listingId,
      listing.site_id,
      listingId,
      monday,
    ]);
  });
}
