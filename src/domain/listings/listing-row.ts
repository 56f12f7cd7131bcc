import { absoluteUrl, mediaUrl } from '../../lib/paths.ts';
import type { CompanyFacts, Evidence, Faq, ListingStatus, UnlockedSection } from '../fields.ts';
import { cardImagePath } from '../media/card-url.ts';

// The listing row and its public view, apart from listings.ts so that the search engines
// (src/search/) can show listings without importing the domain's queries.

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
  /** The stored `/media/...` path of the 256 px logo (site-relative; views make it absolute). */
  logo_url: string | null;
  /** The stored `/media/...` path of the 1200×630 preview image. */
  image_url: string | null;
  contact_email: string | null;
  facts: CompanyFacts;
  socials: Record<string, string>;
  faqs: Faq[];
  categories: string[];
  evidence: Record<string, Evidence>;
  votes: number;
  follower_count: number;
  /** Why the site team unlisted it (told to the owner); null otherwise. Absent from rows built by hand. */
  unlisted_reason?: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The columns a public listing is made from. */
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

/** Public view of a listing; `siteKey` names the site it is on, media URLs are on `baseUrl`. */
export function toPublicListing(row: Pick<ListingRow, (typeof PUBLIC_COLUMNS)[number]>, siteKey: string, baseUrl: string) {
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
    logo_url: mediaUrl(baseUrl, row.logo_url),
    image_url: mediaUrl(baseUrl, row.image_url),
    card_image_url: absoluteUrl(baseUrl, cardImagePath(row)),
    facts: row.facts,
    socials: row.socials,
    faqs: row.faqs,
    categories: row.categories,
    follower_count: row.follower_count,
    site: siteKey,
  };
}
