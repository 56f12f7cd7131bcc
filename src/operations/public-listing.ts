import { z } from 'zod';
import { publicListingBySlug } from '../domain/listings/listing-views.ts';
import { PublicListingView } from './listing-edit-schemas.ts';
import { defineOperation } from './operation.ts';

export const getListingOp = defineOperation({
  name: 'get_listing',
  summary: 'One live listing',
  description: 'The public data of a live listing, with milestones when the listing shows them (paid, or the section unlocked).',
  method: 'GET',
  path: '/listings/{slug}',
  idempotent: false,
  readOnly: true,
  tags: ['public'],
  input: z.object({ slug: z.string().min(1).max(80).describe('The listing slug, e.g. acme-rockets') }),
  output: PublicListingView,
  handler: (input, ctx) => publicListingBySlug(ctx.db, ctx.caches.sites, input.slug, ctx.config.baseUrl),
});
