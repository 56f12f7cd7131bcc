import { z } from 'zod';
import { parseHttpsUrl, parseHttpUrl } from '../lib/urls.ts';

/**
 * THE field rules of the service, in one place: every schema of the contract (operations) and
 * every domain type built on them uses these, so a rule cannot differ between two fields.
 * Patterns are plain ECMA-262 ranges (no `\p{…}`), so JSON Schema tools in any language compile
 * the same rule the API applies.
 */

/** Lengths shared by the crawler, drafts, listing edits and pages (`maxlength` of forms too). */
export const LIMITS = {
  name: 120,
  headline: 70,
  summary: 300,
  seoTitle: 70,
  seoDescription: 160,
  url: 2048,
  email: 254,
  updateTitle: 120,
  updateBody: 5000,
} as const;

/** Ids are PostgreSQL `integer` serials: 1 to 2^31 - 1. */
export const MAX_ID = 2_147_483_647;
export const Id = z.int().positive().max(MAX_ID);

/** The id a path segment names (`/keys/12`), or null for anything but a decimal id in range. */
export function parseId(value: string | undefined): number | null {
  if (value === undefined || !/^[1-9]\d{0,9}$/.test(value)) return null;
  const id = Number(value);
  return id <= MAX_ID ? id : null;
}

/** C0 and C1 control characters and DEL (`\u0085` NEL included): never in one line of text. */
export const ONE_LINE_PATTERN = /^[^\u0000-\u001f\u007f-\u009f]*$/;
/** The same, but tab, line feed and carriage return are allowed: text people type in a box. */
export const PLAIN_TEXT_PATTERN = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*$/;

/** Whether `value` is one line without control characters (for checks outside a schema). */
export const isOneLine = (value: string) => ONE_LINE_PATTERN.test(value);

/**
 * Why PostgreSQL cannot store `value` in text or jsonb (a NUL, or a lone surrogate such as
 * `\ud800`: not well-formed Unicode), or null when it can. THE rule every input string passes:
 * operation inputs (operations/string-guard.ts) and what the OAuth server stores.
 */
export function unstorableText(value: string): string | null {
  if (value.includes('\u0000')) return 'Must not contain NUL (\\u0000) characters';
  return value.isWellFormed() ? null : 'Must be well-formed Unicode (no lone surrogate such as \\ud800)';
}

/** One line of text (names, titles, headlines), trimmed, at most `max` characters. */
export const oneLine = (max: number) => z.string().trim().max(max).regex(ONE_LINE_PATTERN, 'Must be one line without control characters');

/** Plain text (bios, summaries, bodies): line breaks and tabs allowed, other control characters not. */
export const plainText = (max: number) =>
  z.string().trim().max(max).regex(PLAIN_TEXT_PATTERN, 'Must be plain text without control characters');

// Scheme, then an authority without `@` (so without credentials): what the refinement checks, as a pattern.
const HTTP_URL_PATTERN = /^[Hh][Tt][Tt][Pp][Ss]?:\/\/[^\s/?#@]+([/?#]\S*)?$/;
const HTTPS_URL_PATTERN = /^[Hh][Tt][Tt][Pp][Ss]:\/\/[^\s/?#@]+([/?#]\S*)?$/;

/** An absolute http(s) URL without credentials, at most 2048 characters. */
export const HttpUrl = z
  .string()
  .min(1)
  .max(LIMITS.url)
  .regex(HTTP_URL_PATTERN, { message: 'Must be an http(s) URL without credentials', abort: true })
  .refine((v) => parseHttpUrl(v) !== null, 'Must be an http(s) URL without credentials')
  .meta({ format: 'uri' });

/** The same, https only. */
export const HttpsUrl = z
  .string()
  .min(1)
  .max(LIMITS.url)
  .regex(HTTPS_URL_PATTERN, { message: 'Must be an https URL without credentials', abort: true })
  .refine((v) => parseHttpsUrl(v) !== null, 'Must be an https URL without credentials')
  .meta({ format: 'uri' });

/**
 * A website address as people type it: `example.org` gets `https://` in front (anything without
 * `://` does), then it must be an http(s) URL without credentials. The pattern states the same
 * rule for the raw value (an explicit scheme other than http or https is refused).
 */
export const WebsiteUrl = z
  .string()
  .trim()
  .min(1)
  .max(LIMITS.url)
  .regex(/^(?:[Hh][Tt][Tt][Pp][Ss]?:\/\/|(?![^\s/?#]*:\/\/))[^\s/?#@]+([/?#]\S*)?$/, {
    message: 'Must be a web address such as example.org or https://example.org/ (http or https, without credentials)',
    abort: true,
  })
  .transform((value) => (value.includes('://') ? value : `https://${value}`))
  .pipe(HttpUrl);

export const Email = z.email().max(LIMITS.email);

/** Where a drafted value was found on the owner's website. */
export const Evidence = z.object({
  source_url: z.string(),
  snippet: z.string().describe('Up to ~200 characters of the text or markup the value came from'),
});
export type Evidence = z.infer<typeof Evidence>;

export const Faq = z.object({
  question: plainText(300).min(1),
  answer: plainText(2000).min(1),
});
export type Faq = z.infer<typeof Faq>;
export const Faqs = z.array(Faq).max(30);

/** Company facts found on the site or edited by the owner; every key optional. */
export const CompanyFacts = z
  .object({
    legal_name: oneLine(200),
    founded_year: z.int().min(1800).max(2100),
    founders: z.array(oneLine(120).min(1)).max(10),
    location: oneLine(200),
    employees: oneLine(50),
    email: Email,
    phone: oneLine(50),
  })
  .partial()
  .strict();
export type CompanyFacts = z.infer<typeof CompanyFacts>;

export const LISTING_STATUSES = ['draft', 'awaiting_badge', 'awaiting_profile', 'scheduled', 'live', 'unlisted'] as const;
export const ListingStatus = z.enum(LISTING_STATUSES);
export type ListingStatus = z.infer<typeof ListingStatus>;

/** Paid sections a free listing can unlock one by one. */
export const UnlockedSection = z.enum(['milestones', 'story', 'faqs']);
export type UnlockedSection = z.infer<typeof UnlockedSection>;

export const DRAFT_STATUSES = ['crawling', 'drafting', 'ready', 'submitted', 'failed'] as const;
export const DraftStatus = z.enum(DRAFT_STATUSES);
export type DraftStatus = z.infer<typeof DraftStatus>;
