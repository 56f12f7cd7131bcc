import type { Knex } from 'knex';
import type { Db } from '../../db/knex.ts';
import { appError, type AppError } from '../../errors/errors.ts';
import { absoluteUrl, paths } from '../../lib/paths.ts';
import { companyKey } from '../company.ts';
import { insertListing, type NewListing } from './listings.ts';

/** The listing that holds a company on a site. */
export interface CompanyListing {
  id: number;
  slug: string;
  name: string;
  owner_id: number | null;
}

/** The listing of the website's company on a site, if there is one (the oldest, should several predate the rule). */
export async function findCompanyListing(db: Db, siteId: number, url: string): Promise<CompanyListing | undefined> {
  return db('listings')
    .where({ site_id: siteId, company_domain: companyKey(url) })
    .orderBy('id')
    .first('id', 'slug', 'name', 'owner_id');
}

/**
 * insertListing under the rule "one listing per company and site" (domain/company.ts), for owners
 * (submit_draft) and imports (listings:import) alike; otherwise 409 already_listed naming the
 * listing to claim. Inserts of one company on one site take turns under a transaction-scoped
 * advisory lock, so of two at once exactly one lists it. A lock, not a unique index: listings
 * made before the rule (owners could list a company twice) may share a company and stay.
 */
export async function insertCompanyListing(
  trx: Knex.Transaction,
  listing: NewListing,
  context: { baseUrl: string; callerId: number | null },
): Promise<number> {
  const key = companyKey(listing.url);
  await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`company:${listing.site_id}:${key}`]);
  const existing = await findCompanyListing(trx, listing.site_id, listing.url);
  if (existing) throw alreadyListed(key, existing, context);
  return insertListing(trx, listing);
}

/**
 * 409 already_listed: the problem carries the listing's `slug` (for claim_listing) and the
 * `claim_url` of the web page where a person claims it.
 */
export function alreadyListed(key: string, listing: CompanyListing, context: { baseUrl: string; callerId: number | null }): AppError {
  const claimUrl = absoluteUrl(context.baseUrl, paths.newClaim(listing.slug));
  const held = `${key} is listed on this site already: listing ${listing.id} "${listing.name}" (slug ${listing.slug}); one listing per company and site.`;
  const next =
    listing.owner_id !== null && listing.owner_id === context.callerId
      ? ' It is yours: edit it instead (get_my_listing).'
      : ' If the company is yours, claim that listing: claim_listing with this slug, or open claim_url.';
  return appError('already_listed', held + next, { extensions: { slug: listing.slug, claim_url: claimUrl } });
}
