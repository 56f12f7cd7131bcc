import { z } from 'zod';
import type { Db } from '../db/knex.ts';
import { validationFailed } from '../errors/errors.ts';
import { editListing } from '../domain/listings/listing-edits.ts';
import { listListingVersions } from '../domain/listings/listing-versions.ts';
import { ownerListingView } from '../domain/listings/listing-views.ts';
import { getOwnedListing } from '../domain/listings/listings.ts';
import { listSites, type Site, type SitesCache } from '../domain/sites/sites.ts';
import {
  AppliedEntry,
  ApplyTo,
  CategoryList,
  EditableFields,
  FaqList,
  ListingVersion,
  OwnerListingView,
  SocialLinks,
} from './listing-edit-schemas.ts';
import { milestoneOperations } from './milestones.ts';
import { callerId, defineOperation } from './operation.ts';
import { getListingOp } from './public-listing.ts';
import { Id, PageQuery, page } from './schemas.ts';

export const updateMyListingOp = defineOperation({
  name: 'update_my_listing',
  summary: 'Edit one of your listings',
  description: [
    'Edits publish at once and are kept in the version history (list_listing_versions).',
    '`fields` takes company facts and this site\'s headline, summary and SEO fields (null or "" clears one);',
    '`socials`, `faqs` and `categories` replace all. With `apply_to`, the headline, summary and SEO fields sent in this call are',
    'also written to your listings of the same company (same registrable domain) on those sites; `applied`',
    'reports each, including sites where the company has no listing.',
  ].join(' '),
  method: 'PATCH',
  path: '/me/listings/{listing_id}',
  scope: 'listings:write',
  idempotent: true,
  readOnly: false,
  tags: ['my listings'],
  input: z
    .object({
      listing_id: Id,
      fields: EditableFields.optional(),
      socials: SocialLinks.optional(),
      faqs: FaqList.optional(),
      categories: CategoryList.optional(),
      apply_to: ApplyTo.optional(),
    })
    .strict()
    .refine(
      (b) => b.fields !== undefined || b.socials !== undefined || b.faqs !== undefined || b.categories !== undefined,
      'Send at least one of fields, socials, faqs or categories',
    )
    .meta({ anyOf: [{ required: ['fields'] }, { required: ['socials'] }, { required: ['faqs'] }, { required: ['categories'] }] }),
  output: OwnerListingView.extend({
    applied: z.array(AppliedEntry).describe('What apply_to did per site and listing; empty without apply_to'),
  }),
  async handler(input, ctx) {
    const applyTo = input.apply_to ? await sitesByKeys(ctx.db, ctx.caches.sites, input.apply_to) : null;
    const { listing, applied } = await editListing(ctx.db, {
      ownerId: callerId(ctx),
      listingId: input.listing_id,
      edit: { fields: input.fields ?? {}, socials: input.socials, faqs: input.faqs, categories: input.categories },
      applyTo,
      meta: { editorId: callerId(ctx), operation: 'update_my_listing', requestId: ctx.requestId },
    });
    return { ...(await ownerListingView(ctx.db, ctx.caches.sites, listing, ctx.config.baseUrl)), applied };
  },
});

/** The sites named by apply_to; each unknown key is a 400 at its own path. */
async function sitesByKeys(db: Db, cache: SitesCache, keys: string[]): Promise<Site[]> {
  const sites = await listSites(db, cache);
  if (keys[0] === 'all') return sites;
  const unknown = keys.flatMap((key, i) =>
    sites.some((s) => s.key === key) ? [] : [{ path: `apply_to.${i}`, message: `Unknown site "${key}"; see list_sites` }],
  );
  if (unknown.length) throw validationFailed(unknown);
  return sites.filter((s) => keys.includes(s.key));
}

export const listListingVersionsOp = defineOperation({
  name: 'list_listing_versions',
  summary: 'Version history of one of your listings',
  description: 'Every edit, newest first: who, when, and the before and after of each changed field.',
  method: 'GET',
  path: '/me/listings/{listing_id}/versions',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['my listings'],
  input: z.object({ listing_id: Id, ...PageQuery }),
  output: page(ListingVersion),
  async handler(input, ctx) {
    const listing = await getOwnedListing(ctx.db, callerId(ctx), input.listing_id);
    return listListingVersions(ctx.db, listing.id, input.page, input.per_page);
  },
});

export const listingEditOperations = [updateMyListingOp, listListingVersionsOp, ...milestoneOperations, getListingOp];
