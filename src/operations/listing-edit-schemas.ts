import { z } from 'zod';
import { PLATFORM_HOSTS, SOCIAL_PLATFORMS, socialProfileUrl, type SocialPlatform } from '../domain/listings/social-links.ts';
import { CompanyFacts, Faq, HttpsUrl, Id, OwnerListing, PublicListing } from './schemas.ts';
import { CATEGORY_SLUGS } from '../domain/crawl/categories.ts';
import { Email, LIMITS, oneLine, plainText } from '../domain/fields.ts';

/** Schemas of listing edits, version history and milestones. */

type FactShape = typeof CompanyFacts.shape;

// Company facts keep the crawler's keys and limits; null (or an empty value) removes a fact.
const FactFields = Object.fromEntries(Object.entries(CompanyFacts.shape).map(([key, schema]) => [key, schema.nullable()])) as {
  [K in keyof FactShape]: z.ZodNullable<FactShape[K]>;
};

const text = (max: number, what: string, schema = oneLine(max)) =>
  schema.nullable().describe(`${what}; at most ${max} characters; null or "" clears it`);

/** Keys accepted inside `fields` of update_my_listing; anything else is refused by name. */
export const EditableFields = z
  .object({
    name: oneLine(LIMITS.name).min(1).describe(`Company or product name, 1 to ${LIMITS.name} characters`),
    headline: text(LIMITS.headline, "This site's headline"),
    summary: text(LIMITS.summary, "This site's summary (plain text, line breaks allowed)", plainText(LIMITS.summary)),
    seo_title: text(LIMITS.seoTitle, "This site's SEO title (the page <title>)"),
    seo_description: text(LIMITS.seoDescription, "This site's SEO description (meta description)"),
    contact_email: Email.nullable().describe('Public contact address; null clears it'),
    ...FactFields,
  })
  .partial()
  .strict();

/** The profile URL of one platform: https, on that platform's host (x.com/twitter.com for twitter). */
function socialUrl(platform: SocialPlatform) {
  return z
    .string()
    .max(2048)
    .transform((value, ctx) => {
      const result = socialProfileUrl(platform, value);
      if ('error' in result) {
        ctx.addIssue({ code: 'custom', message: result.error });
        return z.NEVER;
      }
      return result.url;
    })
    .describe(`https URL of the ${platform} profile on ${PLATFORM_HOSTS[platform]}`);
}

/** All social links at once, keyed by platform; an unknown platform is refused by name. */
export const SocialLinks = z
  .object(Object.fromEntries(SOCIAL_PLATFORMS.map((p) => [p, socialUrl(p)])) as Record<SocialPlatform, ReturnType<typeof socialUrl>>)
  .partial()
  .strict()
  .describe('Replaces all social links; a platform left out is removed. `twitter` takes x.com or twitter.com links.');

/** The listing's categories (the crawler drafts them; the category pages list them). */
export const CategoryList = z
  .array(z.enum(CATEGORY_SLUGS))
  .max(5)
  .describe(`Replaces the categories: at most 5 of ${CATEGORY_SLUGS.join(', ')}; [] removes all`);

export const FaqList = z.array(Faq.strict()).max(30).describe('Replaces all FAQs (at most 30)');

export const ApplyTo = z
  .array(z.string().min(1).max(60))
  .min(1)
  .max(50)
  .refine((keys) => !keys.includes('all') || keys.length === 1, '"all" cannot be combined with site keys')
  .describe(
    '`["all"]` or site keys (see list_sites): the headline, summary and SEO fields sent here are also written to your listings of the same company on those sites',
  );

export const AppliedEntry = z.object({
  site: z.string(),
  listing_id: Id.nullable().describe('Null when the company has no listing there, or the listing is not yours'),
  status: z
    .enum(['updated', 'unchanged', 'no_listing', 'not_owned'])
    .describe(
      'no_listing: the company has no listing on that site; not_owned: its listing there belongs to another account and was left unchanged',
    ),
  fields: z.array(z.string()).describe('Fields that changed on that listing'),
});

export const Milestone = z.object({
  id: Id,
  date: z.string().describe('YYYY-MM-DD'),
  title: z.string(),
  description: z.string().nullable(),
  url: z.string().nullable(),
});

export const NewMilestone = {
  date: z.iso.date('Must be a real calendar date written YYYY-MM-DD').describe('YYYY-MM-DD, a real calendar date'),
  title: oneLine(120).min(1, 'A title is required').describe('1 to 120 characters'),
  description: plainText(1000).nullable().optional().describe('At most 1000 characters'),
  url: HttpsUrl.nullable().optional().describe('An https link, at most 2048 characters'),
};

/** The owner's view of a listing, with its milestones whether or not they show publicly. */
export const OwnerListingView = OwnerListing.extend({ milestones: z.array(Milestone) });

/** A live listing as anyone sees it. */
export const PublicListingView = PublicListing.extend({
  milestones: z
    .array(Milestone)
    .optional()
    .describe('Present only when the listing shows milestones: a paid listing, or the milestones section unlocked'),
});

export const ListingVersion = z.object({
  id: Id,
  listing_id: Id,
  operation: z.string().describe('The operation that made the change, e.g. update_my_listing or add_milestone'),
  edited_by: Id.nullable().describe('User id of the editor; null once that account is gone'),
  via_listing_id: Id.nullable().describe('Set when the change came from an edit of that listing through apply_to'),
  changes: z.record(z.string(), z.object({ before: z.unknown(), after: z.unknown() })).describe('Changed fields only; null is empty'),
  created_at: z.string(),
});
