import { z } from 'zod';
import { SOCIAL_PLATFORMS } from '../domain/crawl/extract-socials.ts';
import { CompanyFacts, Evidence, Faq, HttpUrl, Id, ListingStatus, UnlockedSection } from '../domain/fields.ts';
import { IMAGE_BASE64_PATTERN, isImageBase64 } from '../domain/media/images.ts';

/** Shared schemas of the contract; operation modules compose them. Field rules live in domain/fields.ts. */
export {
  CompanyFacts,
  DraftStatus,
  Id,
  Evidence,
  Faq,
  Faqs,
  HttpsUrl,
  HttpUrl,
  LIMITS,
  ListingStatus,
  oneLine,
  parseId,
  plainText,
  WebsiteUrl,
} from '../domain/fields.ts';

export const PageQuery = {
  page: z.int().min(1).max(100_000).default(1).describe('1-based page number'),
  per_page: z.int().min(1).max(100).default(20).describe('Items per page, at most 100'),
};

export const page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), page: z.int(), per_page: z.int(), total: z.int() });

// One platform list for the crawler, the draft fields and listing edits.
export { SOCIAL_PLATFORMS };
export const Socials = z.partialRecord(z.enum(SOCIAL_PLATFORMS), HttpUrl);

export const CategorySlug = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Must be a category slug')
  .max(60);

/** An uploaded image file (founder photo, listing logo and image), base64 in JSON and MCP arguments alike. */
export const ImageBase64 = z
  .string()
  .min(1)
  // The strings decodeImageBase64 takes; the document states them as a pattern (meta), the
  // check runs in linear time (the pattern's backtracking overflows on a 7 MB upload).
  .refine(isImageBase64, 'Must be base64 (optionally a data: URL)')
  .meta({ pattern: IMAGE_BASE64_PATTERN.source })
  .describe('The image file, base64-encoded (a data: URL is accepted; its type is ignored)');

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
  logo_url: z
    .string()
    .nullable()
    .describe(
      'The square logo, 256×256 PNG under /media (the 64×64 one is the same URL ending in 64.png); the URL changes when the logo does',
    ),
  image_url: z.string().nullable().describe('The preview image for link previews, 1200×630 JPEG under /media'),
  card_image_url: z
    .string()
    .describe(
      'A generated 1200×630 PNG card with the name, headline and logo, for link previews of a listing without image_url (og:image = image_url ?? card_image_url)',
    ),
  facts: CompanyFacts,
  socials: z.record(z.string(), z.string()),
  faqs: z.array(Faq),
  categories: z.array(z.string()),
  follower_count: z.int().describe('People following the listing (follow_listing)'),
  site: z.string().describe('Key of the site the listing is on'),
});

/** The last check of a listing's badge on the owner's site. */
export const BadgeCheck = z.object({
  status: z
    .enum(['unchecked', 'present', 'missing', 'inconclusive'])
    .describe('inconclusive: their server did not answer usefully (403, 429, 5xx, time-out); checked again'),
  checked_at: z.string().nullable(),
  missing_since: z.string().nullable().describe('First check of the current run of "missing" results'),
  detail: z.string().nullable().describe('What the check found, in words'),
});

/** The owner's view: public data plus plan, launch week and unlocked paid sections. */
export const OwnerListing = PublicListing.extend({
  plan: z.enum(['free', 'paid']).nullable(),
  launch_week: z.string().nullable().describe('ISO week of the launch, e.g. 2026-W52 (as list_launch_weeks names weeks)'),
  launch_week_start: z.string().nullable().describe('Monday (YYYY-MM-DD) of launch_week; the listing goes live at 00:00 UTC'),
  queue_position: z.int().nullable().describe('1-based place within the launch week, in order of booking'),
  badge: BadgeCheck,
  badge_note: z.string().nullable().describe('Set when the badge has been missing beyond the grace period after launch'),
  missing: z
    .array(z.object({ code: z.string(), reason: z.string(), url: z.string(), operation: z.string() }))
    .describe('What a free listing waiting in awaiting_profile / awaiting_badge still needs; empty otherwise'),
  unlocked_sections: z.array(UnlockedSection),
  contact_email: z.string().nullable(),
  evidence: z.record(z.string(), Evidence),
  unlisted_reason: z.string().nullable().describe('Why the site team unlisted the listing, while it is unlisted by them; null otherwise'),
  created_at: z.string(),
  updated_at: z.string(),
});
