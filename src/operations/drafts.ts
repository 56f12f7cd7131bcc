import { z } from 'zod';
import { badRequest } from '../errors/errors.ts';
import { assertCrawlableUrl } from '../domain/crawl/index.ts';
import { createDraft, getOwnedDraft, listOwnedDrafts, submitDraft, toDraftView, updateDraftFields } from '../domain/drafts/drafts.ts';
import { siteByKey } from '../domain/sites/sites.ts';
import { callerId, defineOperation } from './operation.ts';
import {
  CategorySlug,
  CompanyFacts,
  DraftStatus,
  Evidence,
  Faqs,
  HttpUrl,
  Id,
  LIMITS,
  oneLine,
  PageQuery,
  page,
  plainText,
  Socials,
  WebsiteUrl,
} from './schemas.ts';
import { Email } from '../domain/fields.ts';

const DraftFields = z.object({
  name: oneLine(LIMITS.name).min(1).nullable(),
  headline: oneLine(LIMITS.headline).nullable(),
  summary: plainText(LIMITS.summary).nullable(),
  logo_url: HttpUrl.nullable().describe(
    'The logo found on the website, checked and stored as a 256×256 PNG under /media; null when the site has no usable one',
  ),
  image_url: HttpUrl.nullable().describe(
    'The preview image found on the website (og:image, twitter:image), stored as a 1200×630 JPEG under /media',
  ),
  facts: CompanyFacts,
  socials: Socials,
  faqs: Faqs,
  categories: z.array(CategorySlug).max(5),
  contact_email: Email.nullable(),
});

const Draft = z.object({
  id: Id,
  url: z.string(),
  status: DraftStatus,
  failure: z
    .object({ code: z.string(), reason: z.string() })
    .nullable()
    .describe('Why the draft failed: dns_failure, address_refused, timeout, not_html, too_large, robots_disallowed, ...'),
  fields: DraftFields.extend({ socials: z.record(z.string(), z.string()), categories: z.array(z.string()) })
    .nullable()
    .describe('Drafted listing fields; null until ready'),
  evidence: z.record(z.string(), Evidence).describe('Per drafted field: the page and snippet it came from'),
  listing_id: Id.nullable(),
  workflow_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const createDraftOp = defineOperation({
  name: 'create_draft',
  summary: 'Draft a listing from a website',
  description:
    'Starts crawling the website and drafting listing content. Poll get_draft until the status is neither crawling nor drafting. ' +
    'Quotas per account: a few drafts crawling at a time and a number per hour (429 quota_exceeded with Retry-After, `limit` and `window_seconds`).',
  method: 'POST',
  path: '/drafts',
  scope: 'listings:write',
  idempotent: true,
  errorCodes: ['unknown_site', 'invalid_url', 'address_refused', 'quota_exceeded'],
  readOnly: false,
  successStatus: 201,
  tags: ['drafts'],
  input: z.object({
    url: WebsiteUrl.describe('The website to draft from (http or https); without a scheme, as example.org, https:// is added'),
    site: z.string().min(1).max(60).optional().describe('Site key (see list_sites); default: the site of this host'),
  }),
  output: Draft,
  async handler(input, ctx) {
    const site = input.site === undefined ? ctx.site : await siteByKey(ctx.db, ctx.caches.sites, input.site);
    if (!site) throw badRequest('unknown_site', `There is no site with the key "${input.site}"; see list_sites.`);
    await assertCrawlableUrl(input.url, ctx.config.crawl.allowPrivateNetworks);
    const owner = { ownerId: callerId(ctx), siteId: site.id, siteKey: site.key, url: input.url };
    const draft = await createDraft(ctx, owner, ctx.config.quotas, ctx.clock.now());
    return toDraftView(draft, ctx.config.baseUrl);
  },
});

export const getDraftOp = defineOperation({
  name: 'get_draft',
  summary: 'Read a draft and its status',
  method: 'GET',
  path: '/drafts/{id}',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['drafts'],
  input: z.object({ id: Id }),
  output: Draft,
  handler: async (input, ctx) => toDraftView(await getOwnedDraft(ctx.db, callerId(ctx), input.id), ctx.config.baseUrl),
});

export const updateDraftOp = defineOperation({
  name: 'update_draft',
  summary: 'Edit the drafted fields of a ready draft',
  description: 'Only the fields sent change; the website evidence is kept.',
  method: 'PATCH',
  path: '/drafts/{id}',
  scope: 'listings:write',
  idempotent: true,
  errorCodes: ['draft_crawling', 'draft_drafting', 'draft_submitted', 'draft_failed'],
  readOnly: false,
  tags: ['drafts'],
  input: DraftFields.partial()
    .strict()
    .extend({
      id: Id,
      logo_url: z.null().optional().describe('null drops the drafted logo; upload another after submitting (upload_listing_logo)'),
      image_url: z
        .null()
        .optional()
        .describe('null drops the drafted preview image; upload another after submitting (upload_listing_image)'),
    }),
  output: Draft,
  async handler({ id, ...changes }, ctx) {
    return toDraftView(await updateDraftFields(ctx.db, callerId(ctx), id, changes), ctx.config.baseUrl);
  },
});

export const submitDraftOp = defineOperation({
  name: 'submit_draft',
  summary: 'Submit a ready draft as a listing',
  description:
    'Creates a listing in status draft (with the website evidence). A draft is submitted once. ' +
    'One listing per company and site: a company already listed here is 409 `already_listed`, whose problem carries the listing’s `slug` (for claim_listing) and a `claim_url`.',
  method: 'POST',
  path: '/drafts/{id}/submit',
  scope: 'listings:write',
  idempotent: true,
  errorCodes: ['draft_crawling', 'draft_drafting', 'draft_submitted', 'draft_failed', 'draft_incomplete', 'already_listed'],
  readOnly: false,
  successStatus: 201,
  tags: ['drafts'],
  input: z.object({ id: Id }),
  output: z.object({ listing_id: Id }),
  handler: async (input, ctx) => ({ listing_id: await submitDraft(ctx.db, callerId(ctx), input.id, ctx.config.baseUrl) }),
});

const DraftSummary = Draft.omit({ fields: true, evidence: true }).extend({
  name: z.string().nullable().describe('The drafted name; null until the draft is ready'),
});

export const listMyDraftsOp = defineOperation({
  name: 'list_my_drafts',
  summary: 'Your drafts, newest first',
  description: 'Each draft with its status, failure and listing id; read one with get_draft for its fields.',
  method: 'GET',
  path: '/drafts',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['drafts'],
  input: z.object({ ...PageQuery }),
  output: page(DraftSummary),
  handler: (input, ctx) => listOwnedDrafts(ctx.db, callerId(ctx), input.page, input.per_page),
});

export const draftOperations = [createDraftOp, listMyDraftsOp, getDraftOp, updateDraftOp, submitDraftOp];
