import type { Db } from '../../db/knex.ts';
import { queueMail } from '../../mail/outbox.ts';
import { stoppableMails } from '../mail-preferences/stoppable-mail.ts';
import { stoppedAmong } from '../mail-preferences/stops.ts';

export interface DigestBatch {
  /** Outbox rows queued by this call, for immediate delivery. */
  mailIds: number[];
  /** Whether more followers of the listing are due (call again). */
  more: boolean;
  /** Epoch ms of the listing's next digest that is not due yet (null: none waiting). */
  nextDueAt: number | null;
}

interface PendingUpdate {
  notification_id: number;
  title: string;
  body: string;
  published_at: Date;
}

/** Longest update text quoted in a digest; the listing page has the rest. */
const DIGEST_BODY_CHARS = 600;

/**
 * Sends the digests of one listing that are due at `now`: each follower whose `digest_due_at` passed gets
 * one mail with every update held back for them (notifications still `mail_pending`), and the
 * window starts again. Followers are locked and skipped when locked, so the several fan-outs
 * that wake up for one listing's digest never mail a follower twice; the dedupe key (the last
 * held notification) keeps a repeated call from queuing the same digest again.
 */
export function sendDueDigests(db: Db, listingId: number, limit: number, baseUrl: string, now: Date): Promise<DigestBatch> {
  return db.transaction(async (trx) => {
    const listing: { name: string; slug: string } | undefined = await trx('listings').where({ id: listingId }).first('name', 'slug');
    if (!listing) return { mailIds: [], more: false, nextDueAt: null };
    const due: { user_id: number; email: string; email_verified_at: Date | null }[] = await trx('listing_followers as f')
      .join('users as u', 'u.id', 'f.user_id')
      .where('f.listing_id', listingId)
      .where('f.digest_due_at', '<=', now)
      .orderBy('f.user_id')
      .limit(limit)
      .forUpdate('f')
      .skipLocked()
      .select('f.user_id', 'u.email', 'u.email_verified_at');
    const mailIds: number[] = [];
    // A follower who stopped these mails meanwhile gets no digest; the held updates are let go.
    const stopped = await stoppedAmong(
      trx,
      due.map((f) => f.user_id),
      'follower_updates',
      listingId,
    );
    const stoppable = await stoppableMails(trx, baseUrl);
    for (const follower of due) {
      const pending: PendingUpdate[] = await trx('notifications as n')
        .join('listing_updates as lu', 'lu.id', 'n.listing_update_id')
        .where({ 'n.user_id': follower.user_id, 'lu.listing_id': listingId, 'n.mail_pending': true })
        .orderBy([{ column: 'lu.published_at' }, { column: 'lu.id' }])
        .select('n.id as notification_id', 'lu.title', 'lu.body', 'lu.published_at');
      if (pending.length && follower.email_verified_at && !stopped.has(follower.user_id)) {
        const dedupeKey = `listing-digest:${listingId}:${follower.user_id}:${pending.at(-1)!.notification_id}`;
        const stop = { userId: follower.user_id, kind: 'follower_updates', listingId } as const;
        await queueMail(trx, stoppable(stop, { to: follower.email, dedupeKey, ...digestMail(listing, pending, baseUrl) }));
        mailIds.push(...(await trx('mail_outbox').where({ dedupe_key: dedupeKey }).pluck('id')));
      }
      await trx('notifications')
        .whereIn(
          'id',
          pending.map((p) => p.notification_id),
        )
        .update({ mail_pending: false });
      await trx('listing_followers')
        .where({ listing_id: listingId, user_id: follower.user_id })
        .update({ digest_due_at: null, ...(pending.length ? { last_mailed_at: now } : {}) });
    }
    const next = await trx('listing_followers')
      .where({ listing_id: listingId })
      .where('digest_due_at', '>', now)
      .min({ at: 'digest_due_at' })
      .first();
    return { mailIds, more: due.length === limit, nextDueAt: next?.at ? new Date(next.at).getTime() : null };
  });
}

/** One mail for the updates held back in the window: each title, date and (the start of) its text. */
function digestMail(listing: { name: string; slug: string }, updates: PendingUpdate[], baseUrl: string) {
  const n = updates.length;
  return {
    subject: `${listing.name}: ${n} new ${n === 1 ? 'update' : 'updates'}`,
    text: [
      `${listing.name} posted ${n} ${n === 1 ? 'update' : 'updates'} since our last mail.`,
      ...updates.flatMap((u) => [
        '',
        `${u.title} (${u.published_at.toISOString().slice(0, 10)})`,
        u.body.length > DIGEST_BODY_CHARS ? `${u.body.slice(0, DIGEST_BODY_CHARS)}…` : u.body,
      ]),
      '',
      `See the listing: ${baseUrl}/listings/${listing.slug}`,
      '',
      `You get at most one mail an hour about ${listing.name} because you follow it.`,
    ].join('\n'),
  };
}
