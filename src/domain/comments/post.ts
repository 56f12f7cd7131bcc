import type { CommentSettings } from '../../config/config.ts';
import type { Db } from '../../db/knex.ts';
import { appError, conflict, invalidField, notFound, tooManyRequests, unprocessable } from '../../errors/errors.ts';
import { RateLimitedError, takePoints } from '../quotas/rate-limit.ts';
import { networkOf } from '../votes/signals.ts';
import { tellAboutComment, type CommentNoticeSettings } from './notices.ts';
import { bodyHash, linkCount, normaliseBody } from './text.ts';
import type { CommentStatus } from './tables.ts';

/** Who posts, as the rules see them: the account and the client address the post came from. */
export interface Poster {
  userId: number;
  ip: string;
}

export interface NewComment {
  listingId: number;
  /** The top-level comment this one answers; null or absent for a top-level comment. */
  parentId?: number | null;
  body: string;
}

/** A row just written: its id and the status it got (`held` for a new account's). */
export interface PostedComment {
  id: number;
  status: CommentStatus;
}

/**
 * Posts a comment or a reply on a live listing. Refused in the order a person can act on: the
 * text (empty, too many links), the listing (not live: 404), the account (unconfirmed email),
 * the parent (not shown: 404; itself a reply: 422), the rate limits (429), the same text on
 * another listing (409). A comment of an account younger than `holdNewAccountsHours` is held for
 * review. The listing's `comment_count` moves in the transaction that inserts a visible comment,
 * and with `notices` the people it concerns are told in it too (a held one: once approved).
 */
export async function postComment(
  db: Db,
  poster: Poster,
  input: NewComment,
  rules: CommentSettings,
  now: Date,
  notices?: CommentNoticeSettings,
): Promise<PostedComment> {
  const body = checkedBody(input.body, rules);
  const { young } = await checkEligible(db, poster.userId, input, rules, now);
  await takeCommentPoints(db, poster, rules);
  return db.transaction(async (trx) => {
    await refuseDuplicate(trx, poster.userId, input.listingId, body);
    const status: CommentStatus = young ? 'held' : 'visible';
    const [row] = await trx('comments')
      .insert({
        listing_id: input.listingId,
        user_id: poster.userId,
        parent_id: input.parentId ?? null,
        body,
        body_hash: bodyHash(body),
        status,
        created_at: now,
      })
      .returning(['id', 'status']);
    if (status === 'visible') {
      await trx('listings').where({ id: input.listingId }).increment('comment_count', 1);
      if (notices) await tellAboutComment(trx, row!.id, notices, now);
    }
    return { id: row!.id, status: row!.status as CommentStatus };
  });
}

/** A reply to the top-level comment `parentId`, on its listing (404 when there is no such comment). */
export async function replyToComment(
  db: Db,
  poster: Poster,
  parentId: number,
  body: string,
  rules: CommentSettings,
  now: Date,
  notices?: CommentNoticeSettings,
) {
  const parent = await db('comments').where({ id: parentId }).first('listing_id');
  if (!parent) throw notFound('The comment to reply to');
  return postComment(db, poster, { listingId: parent.listing_id, parentId, body }, rules, now, notices);
}

/** The body as stored, or a 400 naming `body`: empty once trimmed, or more links than allowed. */
export function checkedBody(raw: string, rules: Pick<CommentSettings, 'maxLinks'>): string {
  const body = normaliseBody(raw);
  if (!body) throw invalidField('body', 'Must not be empty');
  const links = linkCount(body);
  if (links > rules.maxLinks) {
    throw invalidField('body', `Has ${links} links; a comment may have at most ${rules.maxLinks}`);
  }
  return body;
}

interface EligibilityRow {
  listing_live: boolean | null;
  email_verified: boolean;
  account_created: Date;
  parent_listing: number | null;
  parent_parent: number | null;
  parent_status: string | null;
  parent_author: number | null;
}

/** The listing, account and parent rules of a post, in one read; `young` when the post is to be held. */
async function checkEligible(db: Db, userId: number, input: NewComment, rules: CommentSettings, now: Date) {
  const { rows } = await db.raw(
    `SELECT l.status = 'live' AS listing_live, u.email_verified_at IS NOT NULL AS email_verified, u.created_at AS account_created,
       p.listing_id AS parent_listing, p.parent_id AS parent_parent, p.status AS parent_status, p.user_id AS parent_author
     FROM users u LEFT JOIN listings l ON l.id = :listingId LEFT JOIN comments p ON p.id = :parentId
     WHERE u.id = :userId`,
    { userId, listingId: input.listingId, parentId: input.parentId ?? null },
  );
  const row = rows[0] as EligibilityRow | undefined;
  if (!row?.listing_live) throw notFound('The listing');
  if (!row.email_verified) {
    throw appError(
      'email_unconfirmed',
      'Confirm your email address first (see the link we mailed you): only confirmed accounts can comment.',
    );
  }
  if (input.parentId != null) {
    const shown = row.parent_status === 'visible' || (row.parent_status === 'held' && row.parent_author === userId);
    if (row.parent_listing !== input.listingId || !shown) throw notFound('The comment to reply to');
    if (row.parent_parent !== null) {
      throw unprocessable('reply_to_reply', 'Replies go one level deep: reply to the comment this reply answers.');
    }
  }
  const heldFor = rules.holdNewAccountsHours * 3_600_000;
  return { young: now.getTime() - row.account_created.getTime() < heldFor };
}

/** One post of the account's and of the client network's hourly allowance, or 429 with Retry-After. */
async function takeCommentPoints(db: Db, poster: Poster, rules: CommentSettings): Promise<void> {
  try {
    await takePoints(db, [
      { limit: { name: 'comment-account-hour', points: rules.perAccountPerHour, seconds: 3600 }, key: String(poster.userId) },
      { limit: { name: 'comment-network-hour', points: rules.perNetworkPerHour, seconds: 3600 }, key: networkOf(poster.ip) ?? poster.ip },
    ]);
  } catch (err) {
    if (!(err instanceof RateLimitedError)) throw err;
    throw tooManyRequests(`Too many comments in a short time; try again in ${err.retryAfterSeconds} seconds.`, err.retryAfterSeconds);
  }
}

/**
 * 409 comment_duplicate when the author has the same text on another listing. The author's lock
 * makes two parallel posts of one text on two listings take turns, so one of them is refused.
 */
export async function refuseDuplicate(trx: Db, userId: number, listingId: number, body: string): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`comments:author:${userId}`]);
  const copy = await trx('comments')
    .where({ user_id: userId, body_hash: bodyHash(body) })
    .whereNot({ listing_id: listingId })
    .whereNot({ status: 'deleted' })
    .first('id');
  if (copy) throw conflict('comment_duplicate', 'You posted the same text on another listing: write a comment for this one.');
}
