import type { Db } from '../../db/knex.ts';
import { absoluteUrl, paths } from '../../lib/paths.ts';
import { emitListingEvent } from '../webhooks/emit.ts';
import { recordWorkflowStart } from '../workflow-outbox/starts.ts';
import { notificationMailWorkflowId } from '../../workflows/contracts/workflow-ids.ts';
import { stoppedAmong } from '../mail-preferences/stops.ts';

/** The notification kinds of the discussion; each is also the mail kind that stops its mail. */
export const COMMENT_NOTICE_KINDS = { comment_reply: 'comment_replies', listing_comment: 'listing_comments' } as const;
export type CommentNoticeKind = keyof typeof COMMENT_NOTICE_KINDS;

/** What telling people about a comment needs besides the database: links, and the mail window. */
export interface CommentNoticeSettings {
  baseUrl: string;
  /** At most one comment mail per person per this window; a batch opens for this long. */
  mailWindowSeconds: number;
}

interface CommentToTell {
  id: number;
  listing_id: number;
  user_id: number | null;
  parent_id: number | null;
  body: string;
  created_at: Date;
  listing_name: string;
  listing_slug: string;
  owner_id: number | null;
  parent_author: number | null;
  author_name: string | null;
}

/** Longest comment text a notification or a mail quotes; the listing page has the rest. */
export const NOTICE_BODY_CHARS = 600;

const quoted = (body: string) => (body.length > NOTICE_BODY_CHARS ? `${body.slice(0, NOTICE_BODY_CHARS)}…` : body);

/**
 * Tells people about a comment that became visible, in the caller's transaction (the post's, or
 * the moderator's approval of a held one): the author of the comment it replies to
 * (`comment_reply`), the listing's owner (`listing_comment`, unless the reply already told them),
 * never the comment's own author. Each gets one notification (unique per person and comment, so
 * a repeat adds nothing) and, unless they stopped that kind or have no confirmed address, joins
 * their pending mail batch. The owner's webhooks hear `comment.created`.
 */
export async function tellAboutComment(trx: Db, commentId: number, settings: CommentNoticeSettings, now: Date): Promise<void> {
  const comment = await commentToTell(trx, commentId);
  if (!comment) return;
  const told = new Map<number, CommentNoticeKind>();
  if (comment.parent_author !== null) told.set(comment.parent_author, 'comment_reply');
  if (comment.owner_id !== null && !told.has(comment.owner_id)) told.set(comment.owner_id, 'listing_comment');
  if (comment.user_id !== null) told.delete(comment.user_id);
  for (const [userId, kind] of told) await notify(trx, comment, userId, kind, settings, now);
  await emitListingEvent(trx, settings.baseUrl, 'comment.created', comment.listing_id, `comment.created:${comment.id}`, {
    comment: commentEventData(comment, settings.baseUrl),
  });
}

/**
 * For the moderation queue: a held comment the site team approved is told about as if posted
 * now (its readers see it only from now on). Call in the approval's transaction.
 */
export const tellAboutApprovedComment = tellAboutComment;

async function commentToTell(trx: Db, commentId: number): Promise<CommentToTell | undefined> {
  return trx('comments as c')
    .join('listings as l', 'l.id', 'c.listing_id')
    .leftJoin('comments as p', 'p.id', 'c.parent_id')
    .leftJoin('founder_profiles as fp', 'fp.user_id', 'c.user_id')
    .where('c.id', commentId)
    .where('c.status', 'visible')
    .first(
      'c.id',
      'c.listing_id',
      'c.user_id',
      'c.parent_id',
      'c.body',
      'c.created_at',
      'l.name as listing_name',
      'l.slug as listing_slug',
      'l.owner_id',
      // A reply to a deleted or removed comment tells nobody: its author is gone from the thread.
      trx.raw(`CASE WHEN p.status IN ('visible', 'held') THEN p.user_id END AS parent_author`),
      'fp.display_name as author_name',
    );
}

async function notify(
  trx: Db,
  comment: CommentToTell,
  userId: number,
  kind: CommentNoticeKind,
  settings: CommentNoticeSettings,
  now: Date,
) {
  const who = authorName(comment);
  const title = kind === 'comment_reply' ? `${who} replied to your comment` : `${who} commented on ${comment.listing_name}`;
  const mailable = await mailableFor(trx, userId, kind);
  const [row] = await trx('notifications')
    .insert({
      user_id: userId,
      kind,
      listing_id: comment.listing_id,
      comment_id: comment.id,
      title,
      body: quoted(comment.body),
      created_at: now,
      mail_pending: mailable,
    })
    .onConflict(['user_id', 'comment_id'])
    .ignore()
    .returning('id');
  if (row && mailable) await joinMailBatch(trx, userId, settings.mailWindowSeconds, now);
}

/** A confirmed address and the kind not stopped: the notification waits for the person's next mail. */
async function mailableFor(trx: Db, userId: number, kind: CommentNoticeKind): Promise<boolean> {
  const user = await trx('users').where({ id: userId }).first('email_verified_at');
  if (!user?.email_verified_at) return false;
  const stopped = await stoppedAmong(trx, [userId], COMMENT_NOTICE_KINDS[kind], null);
  return !stopped.has(userId);
}

/**
 * Opens the person's mail batch unless one is pending: due a window from now, with the start of
 * its workflow (`notification-mail:{user}:{due}`) recorded here. A pending batch takes this
 * notification along, so a person gets at most one comment mail per window.
 */
async function joinMailBatch(trx: Db, userId: number, windowSeconds: number, now: Date): Promise<void> {
  const dueAt = new Date(now.getTime() + windowSeconds * 1000);
  const [opened] = await trx('notification_mail_batches')
    .insert({ user_id: userId, due_at: dueAt })
    .onConflict('user_id')
    .ignore()
    .returning('due_at');
  if (!opened) return;
  const dueMs = opened.due_at.getTime();
  await recordWorkflowStart(trx, {
    kind: 'notification-mail',
    workflowId: notificationMailWorkflowId(userId, dueMs),
    input: { userId, dueAt: dueMs },
  });
}

/** The name the thread shows for the comment's author. */
const authorName = (c: CommentToTell) => c.author_name ?? `Member ${c.user_id ?? ''}`.trim();

/** The comment as `comment.created` carries it. */
function commentEventData(comment: CommentToTell, baseUrl: string) {
  return {
    id: comment.id,
    parent_id: comment.parent_id,
    body: comment.body,
    author: { name: authorName(comment), maker: comment.user_id === comment.owner_id },
    created_at: comment.created_at.toISOString(),
    url: `${absoluteUrl(baseUrl, paths.listing(comment.listing_slug))}#comment-${comment.id}`,
  };
}
