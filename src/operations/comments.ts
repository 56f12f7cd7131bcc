import { z } from 'zod';
import { deleteComment, editComment } from '../domain/comments/change.ts';
import { postComment, replyToComment } from '../domain/comments/post.ts';
import { REPORT_REASONS, reportComment } from '../domain/comments/reports.ts';
import { COMMENT_MAX_CHARS, EDIT_WINDOW_MINUTES } from '../domain/comments/text.ts';
import { commentAsAuthor, listThread, THREAD_SORTS } from '../domain/comments/thread.ts';
import { unvoteComment, voteComment } from '../domain/comments/votes.ts';
import { callerId, defineOperation, type OperationContext } from './operation.ts';
import { Id, PageQuery, plainText } from './schemas.ts';

// Plain text with line breaks; emptiness is judged after normalising (the domain's 400 names `body`).
const Body = plainText(COMMENT_MAX_CHARS).describe(
  `Plain text (no HTML; line breaks kept; http(s) addresses become links), at most ${COMMENT_MAX_CHARS} characters`,
);

const CommentView = z.object({
  id: Id,
  parent_id: Id.nullable().describe('The top-level comment a reply answers; null for a top-level comment'),
  status: z
    .enum(['visible', 'held', 'hidden', 'deleted'])
    .describe(
      'held: waiting for the site team’s review (only its author sees it); hidden: removed by the site team; deleted: by its author',
    ),
  body: z.string().describe('Plain text; empty when deleted or hidden'),
  hidden_reason: z.string().nullable().describe('Why the site team removed it, for hidden'),
  author: z.object({ name: z.string(), maker: z.boolean().describe('One of the listing’s makers') }).nullable(),
  votes: z.int(),
  voted: z.boolean().describe('Whether you upvoted it'),
  mine: z.boolean().describe('Whether you wrote it'),
  created_at: z.string(),
  edited_at: z.string().nullable(),
  editable_until: z.string().nullable().describe('Until when you can edit it (yours, within 10 minutes of posting)'),
});

const ThreadComment = CommentView.extend({ replies: z.array(CommentView) });

const CommentsPage = z.object({
  listing_id: Id,
  comment_count: z.int().describe('Visible comments and replies of the listing'),
  sort: z.enum(THREAD_SORTS),
  items: z.array(ThreadComment),
  page: z.int(),
  per_page: z.int(),
  total: z.int().describe('Top-level comments in the thread'),
});

const VoteState = z.object({ comment_id: Id, votes: z.int(), voted: z.boolean(), changed: z.boolean() });

const viewerOf = (ctx: OperationContext) => ctx.principal?.userId ?? null;
const poster = (ctx: OperationContext) => ({ userId: callerId(ctx), ip: ctx.clientIp });
// Comment mail is batched in the follower digests' window: at most one mail per person per window.
/** How the people a shown comment concerns are told (replies, the listing's owner, webhooks). */
export const commentNotices = (ctx: OperationContext) => ({
  baseUrl: ctx.config.baseUrl,
  mailWindowSeconds: ctx.config.updates.mailWindowSeconds,
});

export const listCommentsOp = defineOperation({
  name: 'list_comments',
  summary: 'Read the discussion of a live listing',
  description:
    'Top-level comments sorted `top` (most upvoted first, then the older) or `newest`, each with its replies (oldest first). ' +
    'Deleted comments that have replies stay in place without their text; comments removed by the site team show the reason. ' +
    'With credentials, `voted` and `mine` are yours, and your own comments waiting for review are included.',
  method: 'GET',
  path: '/listings/{listing_id}/comments',
  idempotent: false,
  readOnly: true,
  tags: ['discussion'],
  input: z.object({ listing_id: Id, sort: z.enum(THREAD_SORTS).default('top'), ...PageQuery }),
  output: CommentsPage,
  handler: (input, ctx) => listThread(ctx.db, input.listing_id, viewerOf(ctx), input, ctx.clock.now()),
});

const POST_CODES = ['email_unconfirmed', 'reply_to_reply', 'comment_duplicate', 'rate_limited'] as const;

export const postCommentOp = defineOperation({
  name: 'post_comment',
  summary: 'Comment on a live listing (or reply to a comment)',
  description:
    'Needs a confirmed email address. With `parent_id`, a reply to that top-level comment (replies go one level deep). ' +
    'Refused: more links than the site allows (400), the same text you posted on another listing (409 comment_duplicate), ' +
    'too many comments from your account or network in an hour (429 rate_limited with Retry-After). ' +
    'A new account’s comments wait for the site team’s review (`status: held`): you see them, others do not yet.',
  method: 'POST',
  path: '/listings/{listing_id}/comments',
  scope: 'comments:write',
  idempotent: true,
  readOnly: false,
  successStatus: 201,
  errorCodes: [...POST_CODES],
  tags: ['discussion'],
  input: z.object({ listing_id: Id, parent_id: Id.nullable().optional().describe('The top-level comment to reply to'), body: Body }),
  output: CommentView,
  async handler(input, ctx) {
    const now = ctx.clock.now();
    const posted = await postComment(
      ctx.db,
      poster(ctx),
      { listingId: input.listing_id, parentId: input.parent_id, body: input.body },
      ctx.config.comments,
      now,
      commentNotices(ctx),
    );
    return commentAsAuthor(ctx.db, posted.id, callerId(ctx), now);
  },
});

export const replyCommentOp = defineOperation({
  name: 'reply_comment',
  summary: 'Reply to a comment',
  description: 'The same as post_comment with `parent_id`: a reply to a top-level comment of a live listing (replies go one level deep).',
  method: 'POST',
  path: '/comments/{comment_id}/replies',
  scope: 'comments:write',
  idempotent: true,
  readOnly: false,
  successStatus: 201,
  errorCodes: [...POST_CODES],
  tags: ['discussion'],
  input: z.object({ comment_id: Id, body: Body }),
  output: CommentView,
  async handler(input, ctx) {
    const now = ctx.clock.now();
    const posted = await replyToComment(ctx.db, poster(ctx), input.comment_id, input.body, ctx.config.comments, now, commentNotices(ctx));
    return commentAsAuthor(ctx.db, posted.id, callerId(ctx), now);
  },
});

export const editCommentOp = defineOperation({
  name: 'edit_comment',
  summary: 'Edit your comment',
  description: `Within ${EDIT_WINDOW_MINUTES} minutes of posting (409 comment_edit_closed after); the comment then shows as edited. Someone else’s comment: 403.`,
  method: 'PATCH',
  path: '/comments/{comment_id}',
  scope: 'comments:write',
  idempotent: true,
  readOnly: false,
  errorCodes: ['not_comment_author', 'comment_edit_closed', 'comment_duplicate'],
  tags: ['discussion'],
  input: z.object({ comment_id: Id, body: Body }),
  output: CommentView,
  async handler(input, ctx) {
    const now = ctx.clock.now();
    await editComment(ctx.db, callerId(ctx), input.comment_id, input.body, ctx.config.comments, now);
    return commentAsAuthor(ctx.db, input.comment_id, callerId(ctx), now);
  },
});

export const deleteCommentOp = defineOperation({
  name: 'delete_comment',
  summary: 'Delete your comment',
  description: 'At any time. Its text is gone at once; a comment with replies leaves “deleted” in its place. Someone else’s comment: 403.',
  method: 'DELETE',
  path: '/comments/{comment_id}',
  scope: 'comments:write',
  idempotent: true,
  readOnly: false,
  destructive: true,
  errorCodes: ['not_comment_author'],
  tags: ['discussion'],
  input: z.object({ comment_id: Id }),
  output: z.object({ comment_id: Id, deleted: z.literal(true) }),
  async handler(input, ctx) {
    await deleteComment(ctx.db, callerId(ctx), input.comment_id, ctx.clock.now());
    return { comment_id: input.comment_id, deleted: true as const };
  },
});

export const voteCommentOp = defineOperation({
  name: 'vote_comment',
  summary: 'Upvote a comment',
  description: 'Once per person (voting again changes nothing); not your own comment; needs a confirmed email address.',
  method: 'POST',
  path: '/comments/{comment_id}/vote',
  scope: 'comments:write',
  idempotent: true,
  readOnly: false,
  errorCodes: ['email_unconfirmed', 'own_comment'],
  tags: ['discussion'],
  input: z.object({ comment_id: Id }),
  output: VoteState,
  handler: (input, ctx) => voteComment(ctx.db, callerId(ctx), input.comment_id, ctx.clock.now()),
});

export const unvoteCommentOp = defineOperation({
  name: 'unvote_comment',
  summary: 'Take back your upvote of a comment',
  description: 'Without a vote nothing changes.',
  method: 'DELETE',
  path: '/comments/{comment_id}/vote',
  scope: 'comments:write',
  idempotent: true,
  readOnly: false,
  destructive: true,
  tags: ['discussion'],
  input: z.object({ comment_id: Id }),
  output: VoteState,
  handler: (input, ctx) => unvoteComment(ctx.db, callerId(ctx), input.comment_id),
});

export const reportCommentOp = defineOperation({
  name: 'report_comment',
  summary: 'Report a comment to the site team',
  description: 'With a reason (and an optional note); the site team reviews it. Reporting again replaces your reason.',
  method: 'POST',
  path: '/comments/{comment_id}/reports',
  scope: 'comments:write',
  idempotent: true,
  readOnly: false,
  successStatus: 201,
  tags: ['discussion'],
  input: z.object({
    comment_id: Id,
    reason: z.enum(REPORT_REASONS),
    note: plainText(500).optional().describe('What the site team should know, at most 500 characters'),
  }),
  output: z.object({ comment_id: Id, reason: z.enum(REPORT_REASONS) }),
  handler: (input, ctx) => reportComment(ctx.db, callerId(ctx), input.comment_id, input, ctx.clock.now()),
});

/** The discussion of listings. */
export const commentOperations = [
  listCommentsOp,
  postCommentOp,
  replyCommentOp,
  editCommentOp,
  deleteCommentOp,
  voteCommentOp,
  unvoteCommentOp,
  reportCommentOp,
];
