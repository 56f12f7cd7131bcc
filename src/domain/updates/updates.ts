import type { Db } from '../../db/knex.ts';
import { pageOf } from '../../db/pages.ts';
import { getOwnedListing } from '../listings/listings.ts';
import { HOUR_SECONDS, lockQuota, quotaExceeded, windowUse } from '../quotas/quotas.ts';
import { listingUpdateWorkflowId } from '../../workflows/contracts/workflow-ids.ts';

export interface ListingUpdateRow {
  id: number;
  listing_id: number;
  site_id: number;
  author_id: number | null;
  title: string;
  body: string;
  published_at: Date;
}

const COLUMNS = ['id', 'listing_id', 'site_id', 'author_id', 'title', 'body', 'published_at'] as const;

/** The owner's view of an update they posted. */
export function toUpdateView(row: ListingUpdateRow) {
  return {
    id: row.id,
    listing_id: row.listing_id,
    title: row.title,
    body: row.body,
    published_at: row.published_at.toISOString(),
    workflow_id: listingUpdateWorkflowId(row.id),
  };
}

/**
 * Publishes an update on one of the owner's listings; another owner's listing is "not found".
 * At most `perHour` updates per listing per hour (each one tells every follower): counted under
 * a per-listing lock, so concurrent posts cannot overshoot; 429 otherwise.
 */
export async function insertListingUpdate(
  db: Db,
  ownerId: number,
  listingId: number,
  update: { title: string; body: string },
  perHour: number,
  now: Date,
): Promise<ListingUpdateRow> {
  return db.transaction(async (trx) => {
    const listing = await getOwnedListing(trx, ownerId, listingId);
    await lockQuota(trx, `updates:${listing.id}`);
    const used = await windowUse(trx, trx('listing_updates').where({ listing_id: listing.id }), 'published_at', {
      seconds: HOUR_SECONDS,
      limit: perHour,
      now,
    });
    if (used.count >= perHour) {
      const detail = `This listing posted ${used.count} updates in the last hour (at most ${perHour}); try again in ${used.retryAfterSeconds} seconds.`;
      throw quotaExceeded('updates_per_listing_per_hour', perHour, HOUR_SECONDS, used.retryAfterSeconds, detail);
    }
    const [row] = await trx('listing_updates')
      .insert({
        listing_id: listing.id,
        site_id: listing.site_id,
        author_id: ownerId,
        title: update.title,
        body: update.body,
        published_at: now,
      })
      .returning(COLUMNS);
    return row;
  });
}

/** The site's latest-updates feed: updates of its live listings, newest first. */
export async function latestUpdates(db: Db, siteId: number, page: number, perPage: number) {
  const base = () =>
    db('listing_updates as u').join('listings as l', 'l.id', 'u.listing_id').where({ 'u.site_id': siteId, 'l.status': 'live' });
  const newestFirst = base()
    .orderBy([
      { column: 'u.published_at', order: 'desc' },
      { column: 'u.id', order: 'desc' },
    ])
    .select('u.id', 'u.title', 'u.body', 'u.published_at', 'l.id as listing_id', 'l.name as listing_name', 'l.slug as listing_slug');
  const found = await pageOf<FeedRow>(newestFirst, base(), page, perPage);
  return {
    ...found,
    items: found.items.map((r) => ({
      id: r.id,
      listing: { id: r.listing_id, name: r.listing_name, slug: r.listing_slug },
      title: r.title,
      body: r.body,
      published_at: r.published_at.toISOString(),
    })),
  };
}

interface FeedRow {
  id: number;
  title: string;
  body: string;
  published_at: Date;
  listing_id: number;
  listing_name: string;
  listing_slug: string;
}

/** The updates posted on one listing, newest first (the caller has checked ownership). */
export async function updatesOfListing(db: Db, listingId: number, page: number, perPage: number) {
  const base = () => db('listing_updates').where({ listing_id: listingId });
  const found = await pageOf<ListingUpdateRow>(
    base()
      .orderBy([
        { column: 'published_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .select(COLUMNS),
    base(),
    page,
    perPage,
  );
  return {
    ...found,
    items: found.items.map((r) => ({ id: r.id, title: r.title, body: r.body, published_at: r.published_at.toISOString() })),
  };
}
