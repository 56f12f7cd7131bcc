import type { Db } from '../../db/knex.ts';
import { pageOf } from '../../db/pages.ts';
import { notFound } from '../../errors.ts';
import { companyKey } from '../company.ts';
import { launchDetails } from '../launches/owner-launch.ts';
import { isoWeekLabel } from '../ranking/weeks.ts';
import type { CompanyFacts, Evidence, Faq, ListingStatus, UnlockedSection } from '../fields.ts';
import { listSites } from '../sites/sites.ts';
import { uniqueSlug } from './slug.ts';

/** A row of the listings table (the columns the service reads). */
export interface ListingRow {
  id: number;
  site_id: number;
  owner_id: number | null;
  slug: string;
  company_domain: string;
  name: string;
  url: string;
  status: ListingStatus;
  plan: 'free' | 'paid' | null;
  launch_week: string | null;
  unlocked_sections: UnlockedSection[];
  headline: string | null;
  summary: string | null;
  seo_title: string | null;
  seo_description: string | null;
  logo_url: string | null;
  image_url: string | null;
  contact_email: string | null;
  facts: CompanyFacts;
  socials: Record<string, string>;
  faqs: Faq[];
  categories: string[];
  evidence: Record<string, Evidence>;
  votes: number;
  follower_count: number;
  created_at: Date;
  updated_at: Date;
}

export const PUBLIC_COLUMNS = [
  'id',
  'site_id',
  'slug',
  'name',
  'url',
  'status',
  'votes',
  'headline',
  'summary',
  'seo_title',
  'seo_description',
  'logo_url',
  'image_url',
  'facts',
  'socials',
  'faqs',
  'categories',
  'follower_count',
] as const;

/** Public view of a listing; `siteKey` names the site it is on. */
export function toPublicListing(row: Pick<ListingRow, (typeof PUBLIC_COLUMNS)[number]>, siteKey: string) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    url: row.url,
    status: row.status,
    votes: row.votes,
    headline: row.headline,
    summary: row.summary,
    seo_title: row.seo_title,
    seo_description: row.seo_description,
    logo_url: row.logo_url,
    image_url: row.image_url,
    facts: row.facts,
    socials: row.socials,
    faqs: row.faqs,
    categories: row.categories,
    follower_count: row.follower_count,
    site: siteKey,
  };
}

/** Owner view of a listing: public data plus plan, launch week, unlocked sections, evidence. */
export function toOwnerListing(row: ListingRow, siteKey: string) {
  return {
    ...toPublicListing(row, siteKey),
    plan: row.plan,
    // The ISO label as everywhere else in the API, with its Monday beside it (DESIGN.md §7).
    launch_week: row.launch_week === null ? null : isoWeekLabel(row.launch_week),
    launch_week_start: row.launch_week,
    unlocked_sections: row.unlocked_sections,
    contact_email: row.contact_email,
    evidence: row.evidence,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** site_id → key, for views that name the site. */
export async function siteKeys(db: Db): Promise<Map<number, string>> {
  return new Map((await listSites(db)).map((s) => [s.id, s.key]));
}

/** The caller's listings of any status, newest first, with their launch details (links on `baseUrl`). */
export async function listOwnedListings(db: Db, ownerId: number, page: number, perPage: number, baseUrl = '') {
  const base = () => db('listings').where({ owner_id: ownerId });
  const [found, keys] = await Promise.all([pageOf<ListingRow>(base().orderBy('id', 'desc'), base(), page, perPage), siteKeys(db)]);
  const launches = await launchDetails(db, found.items, baseUrl);
  return { ...found, items: found.items.map((r) => ({ ...toOwnerListing(r, keys.get(r.site_id)!), ...launches.get(r.id)! })) };
}

/** One of the caller's listings; another owner's listing is "not found". */
export async function getOwnedListing(db: Db, ownerId: number, listingId: number): Promise<ListingRow> {
  const row = await db<ListingRow>('listings').where({ id: listingId, owner_id: ownerId }).first();
  if (!row) throw notFound(`Listing ${listingId}`);
  return row as ListingRow;
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
