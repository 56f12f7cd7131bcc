import { z } from 'zod';
import { ownerListingView } from '../domain/listings/listing-views.ts';
import { getOwnedListing, listOwnedListings } from '../domain/listings/listings.ts';
import { OwnerListingView } from './listing-edit-schemas.ts';
import { callerId, defineOperation } from './operation.ts';
import { Id, OwnerListing, PageQuery, page } from './schemas.ts';

export const listMyListingsOp = defineOperation({
  name: 'list_my_listings',
  summary: 'Your listings of any status',
  method: 'GET',
  path: '/me/listings',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['my listings'],
  input: z.object({ ...PageQuery }),
  output: page(OwnerListing),
  handler: (input, ctx) => listOwnedListings(ctx.db, ctx.caches.sites, callerId(ctx), input.page, input.per_page, ctx.config.baseUrl),
});

export const getMyListingOp = defineOperation({
  name: 'get_my_listing',
  summary: 'One of your listings',
  description: 'Status, plan, launch week, unlocked paid sections, milestones and the public data.',
  method: 'GET',
  path: '/me/listings/{listing_id}',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['my listings'],
  input: z.object({ listing_id: Id }),
  output: OwnerListingView,
  async handler(input, ctx) {
    return ownerListingView(ctx.db, ctx.caches.sites, await getOwnedListing(ctx.db, callerId(ctx), input.listing_id), ctx.config.baseUrl);
  },
});

export const listingOperations = [listMyListingsOp, getMyListingOp];
