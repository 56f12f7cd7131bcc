import { z } from 'zod';
import { followListing, unfollowListing } from '../domain/updates/followers.ts';
import { callerId, defineOperation } from './operation.ts';
import { Id } from './schemas.ts';

const FollowState = z.object({
  listing_id: Id,
  following: z.boolean(),
  follower_count: z.int().describe('Followers of the listing after this call'),
});

export const followListingOp = defineOperation({
  name: 'follow_listing',
  summary: 'Follow a live listing',
  description:
    'You get a notification for each update it posts, and an email: at most one per listing per hour, later updates arrive in one digest. Following again changes nothing.',
  method: 'POST',
  path: '/listings/{listing_id}/follow',
  scope: 'listings:write',
  idempotent: true,
  readOnly: false,
  tags: ['following'],
  input: z.object({ listing_id: Id }).strict(),
  output: FollowState,
  handler: (input, ctx) => followListing(ctx.db, callerId(ctx), input.listing_id),
});

export const unfollowListingOp = defineOperation({
  name: 'unfollow_listing',
  summary: 'Stop following a listing',
  description: 'Not following it already is fine.',
  method: 'DELETE',
  path: '/listings/{listing_id}/follow',
  scope: 'listings:write',
  idempotent: true,
  readOnly: false,
  destructive: true,
  tags: ['following'],
  input: z.object({ listing_id: Id }).strict(),
  output: FollowState,
  handler: (input, ctx) => unfollowListing(ctx.db, callerId(ctx), input.listing_id),
});

export const followOperations = [followListingOp, unfollowListingOp];
