import { commentNotices } from './comments.ts';
import { z } from 'zod';
import { COMMENT_ACTIONS, commentQueue, QUEUE_LISTS, moderateComment, type QueuedComment } from '../domain/comments/moderation.ts';
import { REPORT_REASONS } from '../domain/comments/reports.ts';
import { unprocessable } from '../errors/errors.ts';
import { defineOperation } from './operation.ts';
import { Id, PageQuery, page, plainText } from './schemas.ts';
import { forgetPublicPages } from './staff-moderation.ts';
import { asStaff, audit, STAFF_ERROR_CODES } from './staff.ts';

/** The decisions a moderator takes, for the console's forms. */
export { COMMENT_ACTIONS };

/** Who moderates the discussion: admins and moderators (support is refused). */
const MODERATORS = ['admin', 'moderator'] as const;

const STATUSES = ['visible', 'held', 'hidden', 'deleted'] as const;

const Queued = z.object({
  id: z.int(),
  listing: z.object({ id: z.int(), slug: z.string(), name: z.string() }),
  parent_id: z.int().nullable().describe('The comment a reply answers; null for a top-level comment'),
  author: z
    .object({ user_id: z.int(), name: z.string(), email: z.string(), maker: z.boolean().describe('One of the listing’s makers') })
    .nullable()
    .describe('Null once the account is deleted'),
  body: z.string(),
  hidden_reason: z.string().nullable().describe('Why the site team hid it, for hidden'),
  status: z
    .enum(STATUSES)
    .describe('held: a new account’s comment waiting for review; visible: shown and reported; hidden: by the site team'),
  created_at: z.string(),
  waiting_since: z.string().describe('When it entered the queue: posted (held) or first reported, whichever came first'),
  open_reports: z.int(),
  reports_by_reason: z.array(z.object({ reason: z.enum(REPORT_REASONS), count: z.int() })).describe('Open reports per reason, most first'),
  report_notes: z.array(z.string()).describe('The reporters’ notes, oldest first (reporters are not named)'),
});

const queuedView = (c: QueuedComment): z.input<typeof Queued> => ({
  ...c,
  reports_by_reason: c.reports_by_reason as z.input<typeof Queued>['reports_by_reason'],
  created_at: c.created_at.toISOString(),
  waiting_since: c.waiting_since.toISOString(),
});

export const staffListCommentQueueOp = defineOperation({
  name: 'staff_list_comment_queue',
  summary: 'Site team: comments waiting for moderation',
  description:
    'This site’s held comments (new accounts’, waiting for review) and reported ones with open reports, the longest waiting ' +
    'first, each with its text, author, listing and the open reports per reason. `list: hidden` gives the comments the site ' +
    'team hid instead, the latest first (to restore one). For moderators and admins.',
  method: 'GET',
  path: '/staff/comment-queue',
  scope: 'staff:listings',
  idempotent: false,
  readOnly: true,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({ list: z.enum(QUEUE_LISTS).default('waiting'), ...PageQuery }),
  output: page(Queued),
  async handler(input, ctx) {
    await asStaff(ctx, MODERATORS);
    const found = await commentQueue(ctx.db, ctx.site.id, { list: input.list, page: input.page, perPage: input.per_page });
    return { ...found, items: found.items.map(queuedView) };
  },
});

const State = z.object({
  status: z.enum(STATUSES),
  hidden_reason: z.string().nullable(),
  open_reports: z.int(),
});

export const staffModerateCommentOp = defineOperation({
  name: 'staff_moderate_comment',
  summary: 'Site team: approve, hide or restore a comment, or dismiss its reports',
  description:
    '`approve` shows a held comment; `hide` removes a shown or held one, its place reading “removed by the site team: ' +
    '{reason}” (`reason` required, 422 `reason_required` without); `restore` shows a hidden one again; `dismiss` keeps the ' +
    'comment as it is. Each closes the comment’s open reports and keeps the listing’s comment count exact. 409 ' +
    '`comment_state_conflict` when the action does not apply to the comment’s status. For moderators and admins.',
  method: 'POST',
  path: '/staff/comments/{comment_id}/moderate',
  scope: 'staff:listings',
  idempotent: true,
  readOnly: false,
  destructive: true,
  errorCodes: [...STAFF_ERROR_CODES, 'reason_required', 'comment_state_conflict'],
  tags: ['staff'],
  input: z.object({
    comment_id: Id,
    action: z.enum(COMMENT_ACTIONS),
    reason: plainText(200).optional().describe('For hide: a few words shown in the comment’s place, e.g. “spam”'),
  }),
  output: State.extend({
    comment_id: z.int(),
    listing_id: z.int(),
    reports_resolved: z.int().describe('Open reports this decision closed'),
    comment_count: z.int().describe('The listing’s visible comments after the decision'),
  }),
  async handler(input, ctx) {
    const actor = await asStaff(ctx, MODERATORS);
    const reason = input.reason?.trim() || null;
    if (input.action === 'hide' && !reason)
      throw unprocessable('reason_required', 'Say why in `reason`: it is shown in the comment’s place.');
    const moderation = {
      siteId: ctx.site.id,
      commentId: input.comment_id,
      action: input.action,
      reason,
      staffUserId: actor.userId,
      now: ctx.clock.now(),
      notices: commentNotices(ctx),
    };
    const done = await moderateComment(ctx.db, moderation, async (trx, before, after) => {
      const target = { kind: 'comment', id: String(input.comment_id) };
      await audit(ctx, actor, { operation: 'staff_moderate_comment', input, target, before, after }, trx);
    });
    forgetPublicPages(ctx);
    return done;
  },
});

export const staffCommentOperations = [staffListCommentQueueOp, staffModerateCommentOp] as const;
