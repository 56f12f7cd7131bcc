import { z } from 'zod';
import { SOCIAL_PLATFORMS } from '../domain/crawl/extract-socials.ts';
import { CompanyFacts, Evidence, Faq, HttpUrl, Id, ListingStatus, UnlockedSection } from '../domain/fields.ts';

/** Shared schemas of the contract; operation modules compose them. Field rules live in domain/fields.ts. */
export { CompanyFacts, DraftStatus, Id, Evidence, Faq, Faqs, HttpsUrl, HttpUrl, LIMITS, ListingStatus, oneLine, plainText } from '../domain/fields.ts';


export const PageQuery = {
  page: z.int().min(1).max(100_000).default(1).describe('1-based page number'),
  per_page: z.int().min(1).max(100).default(20).describe('Items per page, at most 100'),
};

export const page = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), page: z.int(), per_page: z.int(), total: z.int() });

// One platform list for the crawler, the draft fields and listing edits.
export { SOCIAL_PLATFORMS };
export const Socials = z.partialRecord(z.enum(SOCIAL_PLATFORMS), HttpUrl);

export const CategorySlug = z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Must be a category slug').max(60);

/** What anyone can read about a listing. */
export const PublicListing = z.object({
  id: Id,
  slug: z.string(),
  name: z.string(),
  url: z.string(),
  status: ListingStatus,
  votes: z.int(),
  headline: z.string().nullable(),
  summary: z.string().nullable(),
  seo_title: z.string().nullable(),
  seo_description: z.string().nullable(),
  logo_url: z.string().nullable(),
  image_url: z.string().nullable(),
  facts: CompanyFacts,
  socials: z.record(z.string(), z.string()),
  faqs: z.array(Faq),
  categories: z.array(z.string()),
  follower_count: z.int().describe('People following the listing (follow_listing)'),
  site: z.string().describe('Key of the site the listing is on'),
});

/** The owner's view: public data plus plan, launch week and unlocked paid sections. */
export const OwnerListing = PublicListing.extend({
  plan: z.enum(['free', 'paid']).nullable(),
  launch_week: z.string().nullable().describe('Monday (YYYY-MM-DD, UTC) of the ISO launch week'),
  unlocked_sections: z.array(UnlockedSection),
  contact_email: z.string().nullable(),
  evidence: z.record(z.string(), Evidence),
  created_at: z.string(),
  updated_at: z.string(),
});
