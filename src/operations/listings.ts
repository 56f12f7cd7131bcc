import { z } from 'zod';
import { getOwnedListing, listOwnedListings, siteKeys, toOwnerListing } from '../domain/listings/listings.ts';
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
  handler: (input, ctx) => listOwnedListings(ctx.db, callerId(ctx), input.page, input.per_page),
});

export const getMyListingOp = defineOperation({
  name: 'get_my_listing',
  summary: 'One of your listings',
  description: 'Status, plan, launch week, unlocked paid sections and the public data.',
  method: 'GET',
  path: '/me/listings/{listing_id}',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['my listings'],
  input: z.object({ listing_id: Id }),
  output: OwnerListing,
  async handler(input, ctx) {
    const row = await getOwnedListing(ctx.db, callerId(ctx), input.listing_id);
    return toOwnerListing(row, (await siteKeys(ctx.db)).get(row.site_id)!);
  },
});

export const listingOperations = [listMyListingsOp, getMyListingOp];
