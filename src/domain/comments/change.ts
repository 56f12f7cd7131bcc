import type { CommentSettings } from '../../config/config.ts';
import type { Db } from '../../db/knex.ts';
import { conflict, forbidden, notFound } from '../../errors/errors.ts';
import { checkedBody, refuseDuplicate } from './post.ts';
import { bodyHash, EDIT_WINDOW_MINUTES } from './text.ts';
import type { CommentStatus, CommentTableRow } from './tables.ts';

/** Statuses its author can still change: a deleted or hidden comment is over. */
const CHANGEABLE = ['visible', 'held'];

/**
 * The author's own comment, locked for the change: 404 when it is not there (or deleted, or
 * hidden by the site team), 403 when it is someone else's.
 */
async function ownComment(trx: Db, userId: number, commentId: number): Promise<CommentTableRow> {
  const row = await trx('comments').where({ id: commentId }).forUpdate().first();
  if (!row || !CHANGEABLE.includes(row.status)) throw notFound('The comment');
  if (row.user_id !== userId) throw forbidden('not_comment_author', 'Only its author can change a comment.');
  return row;
}

/**
 * Edits the body within EDIT_WINDOW_MINUTES of posting (409 after); the page then says "edited".
 * The text rules of a new comment apply (links, the same text on another listing).
 */
export async function editComment(
  db: Db,
  userId: number,
  commentId: number,
  rawBody: string,
  rules: Pick<CommentSettings, 'maxLinks'>,
  now: Date,
): Promise<void> {
  const body = checkedBody(rawBody, rules);
  await db.transaction(async (trx) => {
    const row = await ownComment(trx, userId, commentId);
    if (now.getTime() >= editClosesAt(row.created_at).getTime()) {
      throw conflict('comment_edit_closed', `A comment can be edited for ${EDIT_WINDOW_MINUTES} minutes after posting; that time is over.`);
    }
    if (body === row.body) return;
    await refuseDuplicate(trx, userId, row.listing_id, body);
    await trx('comments')
      .where({ id: commentId })
      .update({ body, body_hash: bodyHash(body), edited_at: now });
  });
}

/** When the author can no longer edit a comment posted at `createdAt`. */
export const editClosesAt = (createdAt: Date): Date => new Date(createdAt.getTime() + EDIT_WINDOW_MINUTES * 60_000);

/**
 * Deletes the author's comment at any time: its text is gone at once. The row stays as `deleted`
 * so that replies keep their place under it (the thread shows "deleted" where it stood, and
 * nothing when no reply is shown). A visible comment leaves the listing's count.
 */
export async function deleteComment(db: Db, userId: number, commentId: number, now: Date): Promise<{ was: CommentStatus }> {
  return db.transaction(async (trx) => {
    const row = await ownComment(trx, userId, commentId);
    await trx('comments').where({ id: commentId }).update({ status: 'deleted', body: '', deleted_at: now });
    if (row.status === 'visible') await trx('listings').where({ id: row.listing_id }).decrement('comment_count', 1);
    return { was: row.status as CommentStatus };
  });
}
