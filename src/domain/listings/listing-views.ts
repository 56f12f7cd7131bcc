import type { Db } from '../../db/knex.ts';
import type { SitesCache } from '../sites/sites.ts';
import { notFound } from '../../errors/errors.ts';
import { launchDetails } from '../launches/owner-launch.ts';
import { siteKeys, toOwnerListing, type ListingRow } from './listings.ts';
import { toPublicListing } from './listing-row.ts';
import { listMilestones, milestonesArePublic } from './milestones.ts';

/** The owner's view of a listing with all its milestones (shown publicly or not) and its launch details. */
export async function ownerListingView(db: Db, sites: SitesCache, row: ListingRow, baseUrl = '') {
  const [keys, milestones, launches] = await Promise.all([
    siteKeys(db, sites),
    listMilestones(db, row.id),
    launchDetails(db, [row], baseUrl),
  ]);
  return { ...toOwnerListing(row, keys.get(row.site_id)!, baseUrl), ...launches.get(row.id)!, milestones };
}

/** A live listing by slug as anyone sees it; milestones only where the listing shows them. */
export async function publicListingBySlug(db: Db, sites: SitesCache, slug: string, baseUrl: string) {
  const row: ListingRow | undefined = await db('listings').where({ slug, status: 'live' }).first();
  if (!row) throw notFound(`Listing "${slug}"`);
  const view = toPublicListing(row, (await siteKeys(db, sites)).get(row.site_id)!, baseUrl);
  if (!milestonesArePublic(row)) return view;
  return { ...view, milestones: await listMilestones(db, row.id) };
}
