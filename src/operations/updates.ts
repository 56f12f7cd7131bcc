import { z } from 'zod';
import { latestUpdates, toUpdateView } from '../domain/updates/updates.ts';
import { postListingUpdate } from '../domain/updates/post-update.ts';
import { listNotifications } from '../domain/updates/notifications.ts';
import { followOperations } from './follows.ts';
import { callerId, defineOperation } from './operation.ts';
import { Id, LIMITS, oneLine, PageQuery, page, plainText } from './schemas.ts';

// A title goes into mail subjects: one line. The body is plain text.
const UpdateTitle = oneLine(LIMITS.updateTitle).min(1);
const UpdateBody = plainText(LIMITS.updateBody).min(1);

const ListingRef = z.object({ id: Id, name: z.string(), slug: z.string() });

export const postListingUpdateOp = defineOperation({
  name: 'post_listing_update',
  summary: 'Post an update on one of your listings',
  description:
    'Published at once. Its followers get an in-app notification and an email (workflow `workflow_id`); ' +
    'a follower gets at most one email per listing per hour, later updates arrive in one digest mail. ' +
    'The update shows in the site’s latest updates while the listing is live. ' +
    'At most a few updates per listing per hour (429 quota_exceeded with Retry-After, `limit` and `window_seconds`).',
  method: 'POST',
  path: '/me/listings/{listing_id}/updates',
  scope: 'listings:write',
  idempotent: true,
  errorCodes: ['quota_exceeded'],
  readOnly: false,
  successStatus: 201,
  tags: ['my listings'],
  input: z
    .object({
      listing_id: Id,
      title: UpdateTitle.describe('Headline of the update, one line, at most 120 characters'),
      body: UpdateBody.describe('Plain text (no HTML), at most 5000 characters'),
    })
    .strict(),
  output: z.object({
    id: Id,
    listing_id: Id,
    title: z.string(),
    body: z.string(),
    published_at: z.string(),
    workflow_id: z.string().describe('The workflow telling the followers'),
  }),
  async handler(input, ctx) {
    const deps = { ...ctx, baseUrl: ctx.config.baseUrl, batchSize: ctx.config.updates.fanOutBatchSize };
    const limit = ctx.config.quotas.updatesPerListingPerHour;
    const update = await postListingUpdate(deps, callerId(ctx), input.listing_id, input, limit, ctx.clock.now());
    return toUpdateView(update);
  },
});

export const listLatestUpdatesOp = defineOperation({
  name: 'list_latest_updates',
  summary: 'Latest updates of this site’s live listings',
  description: 'Newest first; what the site’s latest-updates page shows.',
  method: 'GET',
  path: '/updates',
  idempotent: false,
  readOnly: true,
  tags: ['public'],
  input: z.object({ ...PageQuery }),
  output: page(
    z.object({ id: Id, listing: ListingRef, title: z.string(), body: z.string().describe('Plain text'), published_at: z.string() }),
  ),
  handler: (input, ctx) => latestUpdates(ctx.db, ctx.site.id, input.page, input.per_page),
});

export const listMyNotificationsOp = defineOperation({
  name: 'list_my_notifications',
  summary: 'Your notifications',
  description:
    'Newest first: one per update posted on a listing you follow (`listing_update`), and notes about your own listings ' +
    '(`launch`: news about its launch; `weekly_result`: it finished in the top three of its launch week; ' +
    '`listing_claimed`: another account proved it controls the website and owns the listing now; ' +
    '`order_refund`: a paid item for it could not be delivered and was refunded; ' +
    '`webhook_disabled`: one of your webhook endpoints failed for 3 days while sending an event about it and was turned off), ' +
    'and the discussion (`comment_reply`: someone replied to your comment; `listing_comment`: someone commented on your listing). ' +
    '`read` says whether you marked it read (mark_notifications_read, mark_all_notifications_read).',
  method: 'GET',
  path: '/me/notifications',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['notifications'],
  input: z.object({ ...PageQuery }),
  output: page(
    z.object({
      id: Id,
      kind: z.string().describe('listing_update | weekly_result | comment_reply | listing_comment | ... (more kinds may come)'),
      created_at: z.string(),
      read: z.boolean(),
      title: z.string(),
      body: z.string().describe('Plain text'),
      listing: ListingRef.extend({ site: z.string().describe('Key of the site the listing is on') }),
      update: z
        .object({ id: Id, title: z.string(), body: z.string(), published_at: z.string() })
        .nullable()
        .describe('The update, for listing_update'),
      comment: z
        .object({ id: Id, url: z.string().describe('The comment on the listing page') })
        .nullable()
        .describe('The comment, for comment_reply and listing_comment'),
    }),
  ),
  handler: (input, ctx) => listNotifications(ctx.db, ctx.caches.sites, callerId(ctx), input.page, input.per_page, ctx.config.baseUrl),
});

/** Updates, following and notifications. */
export const updateOperations = [postListingUpdateOp, listLatestUpdatesOp, listMyNotificationsOp, ...followOperations];
