import type { Db } from '../../db/knex.ts';
import { absoluteUrl, paths } from '../../lib/paths.ts';
import { queueMail } from '../../mail/outbox.ts';
import type { MailKind } from '../mail-preferences/kinds.ts';
import { stoppableMails } from '../mail-preferences/stoppable-mail.ts';
import { stoppedAmong } from '../mail-preferences/stops.ts';
import { mailLinkKey, signStop } from '../mail-preferences/tokens.ts';
import { COMMENT_NOTICE_KINDS, type CommentNoticeKind } from './notices.ts';

export interface NoticeMailResult {
  /** Outbox rows queued by this call, for immediate delivery. */
  mailIds: number[];
  /** Epoch ms when the person's pending batch is due, when it is not due yet (null: none pending). */
  dueAt: number | null;
}

interface PendingNotice {
  id: number;
  kind: CommentNoticeKind;
  title: string;
  body: string;
  comment_id: number;
  listing_slug: string;
}

/**
 * Sends one person's comment mail when their batch is due at `now`: one mail with every comment
 * notification still `mail_pending` (the follower digests' flag) of the kinds they still receive,
 * then closes the batch, so the next notification opens a new one a window later. The batch row is
 * locked, so two runs for one batch send once; the dedupe key (the last notification) keeps a
 * repeated run from queuing it again.
 */
export function sendNoticeMail(db: Db, userId: number, baseUrl: string, now: Date): Promise<NoticeMailResult> {
  return db.transaction(async (trx) => {
    const batch = await trx('notification_mail_batches').where({ user_id: userId }).forUpdate().first('due_at');
    if (!batch) return { mailIds: [], dueAt: null };
    if (batch.due_at > now) return { mailIds: [], dueAt: batch.due_at.getTime() };
    const pending: PendingNotice[] = await trx('notifications as n')
      .join('listings as l', 'l.id', 'n.listing_id')
      .where({ 'n.user_id': userId, 'n.mail_pending': true })
      .whereIn('n.kind', Object.keys(COMMENT_NOTICE_KINDS))
      .orderBy('n.id')
      .select('n.id', 'n.kind', 'n.title', 'n.body', 'n.comment_id', 'l.slug as listing_slug');
    const user = await trx('users').where({ id: userId }).first('email', 'email_verified_at');
    const kept = await receivedKinds(trx, userId, pending);
    const mailIds: number[] = [];
    if (kept.length > 0 && user?.email_verified_at) {
      const dedupeKey = `comment-notices:${userId}:${kept.at(-1)!.id}`;
      await queueMail(trx, await noticeMail(trx, userId, user.email, dedupeKey, kept, baseUrl));
      mailIds.push(...(await trx('mail_outbox').where({ dedupe_key: dedupeKey }).pluck('id')));
    }
    await trx('notifications')
      .whereIn(
        'id',
        pending.map((p) => p.id),
      )
      .update({ mail_pending: false });
    await trx('notification_mail_batches').where({ user_id: userId }).delete();
    return { mailIds, dueAt: null };
  });
}

/** The notices of kinds the person still receives (a kind stopped after it was noted is let go). */
async function receivedKinds(trx: Db, userId: number, pending: PendingNotice[]): Promise<PendingNotice[]> {
  const kinds = [...new Set(pending.map((p) => p.kind))];
  const stopped = new Set<CommentNoticeKind>();
  for (const kind of kinds) {
    if ((await stoppedAmong(trx, [userId], COMMENT_NOTICE_KINDS[kind], null)).has(userId)) stopped.add(kind);
  }
  return pending.filter((p) => !stopped.has(p.kind));
}

/**
 * One mail for the batch. Its one-click header stops the kind most of it is about (replies when
 * any); the text also carries the stop link of the other kind when the mail holds both.
 */
async function noticeMail(trx: Db, userId: number, to: string, dedupeKey: string, notices: PendingNotice[], baseUrl: string) {
  const replies = notices.filter((n) => n.kind === 'comment_reply');
  const headerKind: MailKind = replies.length > 0 ? 'comment_replies' : 'listing_comments';
  const both = replies.length > 0 && replies.length < notices.length;
  const stoppable = await stoppableMails(trx, baseUrl);
  const other = both
    ? [
        '',
        `Stop mails about comments on your listings: ${absoluteUrl(baseUrl, paths.unsubscribe(signStop(await mailLinkKey(trx), { userId, kind: 'listing_comments', listingId: null })))}`,
      ]
    : [];
  const n = notices.length;
  const text = [
    `${n === 1 ? 'One answer' : `${n} answers`} in the discussion since our last mail.`,
    ...notices.flatMap((x) => ['', x.title, x.body, `${absoluteUrl(baseUrl, paths.listing(x.listing_slug))}#comment-${x.comment_id}`]),
    '',
    `See all your notifications: ${absoluteUrl(baseUrl, '/account/notifications')}`,
    '',
    'You get at most one mail an hour about replies to your comments and comments on your listings.',
    ...other,
  ].join('\n');
  const subject = n === 1 ? notices[0]!.title : `${n} new comments and replies`;
  return stoppable({ userId, kind: headerKind, listingId: null }, { to, dedupeKey, subject, text });
}
