import type { Db } from '../../db/knex.ts';
import { pageOf } from '../../db/pages.ts';
import { notFound } from '../../errors/errors.ts';
import { companyKey } from '../company.ts';
import { launchDetails } from '../launches/owner-launch.ts';
import { isoWeekLabel } from '../../workflows/contracts/weeks.ts';
import { listSites, type SitesCache } from '../sites/sites.ts';
import { toPublicListing, type ListingRow } from './listing-row.ts';
import { uniqueSlug } from './slug.ts';

// The row's type lives with its public view (listing-row.ts); most modules still name it from here.
export type { ListingRow };

/** Owner view of a listing: public data plus plan, launch week, unlocked sections, evidence. */
export function toOwnerListing(row: ListingRow, siteKey: string, baseUrl: string) {
  return {
    ...toPublicListing(row, siteKey, baseUrl),
    plan: row.plan,
    // The ISO label as everywhere else in the API, with its Monday beside it.
    launch_week: row.launch_week === null ? null : isoWeekLabel(row.launch_week),
    launch_week_start: row.launch_week,
    unlocked_sections: row.unlocked_sections,
    contact_email: row.contact_email,
    evidence: row.evidence,
    unlisted_reason: row.unlisted_reason ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** site_id → key, for views that name the site. */
export async function siteKeys(db: Db, sites: SitesCache): Promise<Map<number, string>> {
  return new Map((await listSites(db, sites)).map((s) => [s.id, s.key]));
}

/** The caller's listings of any status, newest first, with their launch details (links on `baseUrl`). */
export async function listOwnedListings(db: Db, sites: SitesCache, ownerId: number, page: number, perPage: number, baseUrl = '') {
  const base = () => db('listings').where({ owner_id: ownerId });
  const [found, keys] = await Promise.all([pageOf<ListingRow>(base().orderBy('id', 'desc'), base(), page, perPage), siteKeys(db, sites)]);
  const launches = await launchDetails(db, found.items, baseUrl);
  return { ...found, items: found.items.map((r) => ({ ...toOwnerListing(r, keys.get(r.site_id)!, baseUrl), ...launches.get(r.id)! })) };
}

/** One of the caller's listings; another owner's listing is "not found". */
export async function getOwnedListing(db: Db, ownerId: number, listingId: number): Promise<ListingRow> {
  const row = await db('listings').where({ id: listingId, owner_id: ownerId }).first();
  if (!row) throw notFound(`Listing ${listingId}`);
  return row;
}

export type NewListing = Omit<
  ListingRow,
  | 'id'
  | 'slug'
  | 'company_domain'
  | 'status'
  | 'plan'
  | 'launch_week'
  | 'unlocked_sections'
  | 'votes'
  | 'follower_count'
  | 'created_at'
  | 'updated_at'
>;

/**
 * Inserts a listing in status `draft` with a unique slug; runs inside the caller's transaction.
 * `company_domain` is the website's company key (domain/company.ts). Owners and imports go
 * through insertCompanyListing, which keeps one listing per company and site.
 */
export async function insertListing(trx: Db, listing: NewListing): Promise<number> {
  const slug = await uniqueSlug(trx, listing.name);
  const [{ id }] = await trx('listings')
    .insert({
      ...listing,
      slug,
      company_domain: companyKey(listing.url),
      status: 'draft',
      facts: JSON.stringify(listing.facts),
      socials: JSON.stringify(listing.socials),
      faqs: JSON.stringify(listing.faqs),
      evidence: JSON.stringify(listing.evidence),
    })
    .returning('id');
  return id;
}
