import type { Db } from '../../db/knex.ts';
import { absoluteUrl, paths } from '../../paths.ts';
import { queueMail } from '../../mail/outbox.ts';

export interface FanOutBatchInput {
  updateId: number;
  /** Keyset cursor: followers with a larger user id than this are next. */
  afterUserId: number;
  limit: number;
}

export interface FanOutBatch {
  /** Followers handled in this batch (notified, and mailed when their address is verified). */
  followers: number;
  /** Cursor for the next batch; null when this was the last one. */
  lastUserId: number | null;
  /** Outbox rows of this batch, for immediate delivery. */
  mailIds: number[];
}

interface UpdateToTell {
  id: number;
  listing_id: number;
  author_id: number | null;
  title: string;
  body: string;
  published_at: Date;
  listing_name: string;
  listing_slug: string;
}

interface Follower {
  user_id: number;
  email: string;
  email_verified_at: Date | null;
}

/** Dedupe key of the mail that tells one follower about one update. */
export const updateMailKey = (updateId: number, userId: number) => `listing-update:${updateId}:${userId}`;

/**
 * Tells one batch of followers about an update: an in-app notification each and one queued mail
 * each, in one transaction. Safe to repeat: both are unique per (update, follower).
 * Who is told: followers who followed before the update was published (a stable set however
 * long the fan-out runs), except its author. Mail goes only to verified addresses, so nobody can
 * point our mail at someone else's inbox by following listings under their address.
 */
export function tellFollowersBatch(db: Db, input: FanOutBatchInput, baseUrl: string): Promise<FanOutBatch> {
  return db.transaction(async (trx) => {
    const update: UpdateToTell | undefined = await trx('listing_updates as u')
      .join('listings as l', 'l.id', 'u.listing_id')
      .where('u.id', input.updateId)
      .first(
        'u.id', 'u.listing_id', 'u.author_id', 'u.title', 'u.body', 'u.published_at',
        'l.name as listing_name', 'l.slug as listing_slug',
      );
    // Deleted (its start failed, or the listing went away): nobody is left to tell.
    if (!update) return { followers: 0, lastUserId: null, mailIds: [] };
    const followers: Follower[] = await trx('listing_followers as f')
      .join('users as u', 'u.id', 'f.user_id')
      .where('f.listing_id', update.listing_id)
      .andWhere('f.user_id', '>', input.afterUserId)
      .andWhere('f.created_at', '<=', update.published_at)
      .andWhereRaw('f.user_id IS DISTINCT FROM ?', [update.author_id])
      .orderBy('f.user_id')
      .limit(input.limit)
      .select('f.user_id', 'u.email', 'u.email_verified_at');
    if (followers.length === 0) return { followers: 0, lastUserId: null, mailIds: [] };
    await trx('notifications')
      .insert(followers.map((f) => ({ user_id: f.user_id, kind: 'listing_update', listing_update_id: update.id })))
      .onConflict(['user_id', 'listing_update_id'])
      .ignore();
    const keys: string[] = [];
    for (const follower of followers.filter((f) => f.email_verified_at)) {
      const dedupeKey = updateMailKey(update.id, follower.user_id);
      await queueMail(trx, { to: follower.email, dedupeKey, ...updateMail(update, baseUrl) });
      keys.push(dedupeKey);
    }
    // Also rows queued by an earlier attempt of this batch: delivery skips what was sent already.
    const mailIds: number[] = keys.length ? await trx('mail_outbox').whereIn('dedupe_key', keys).orderBy('id').pluck('id') : [];
    const last = followers[followers.length - 1]!.user_id;
    return { followers: followers.length, lastUserId: followers.length < input.limit ? null : last, mailIds };
  });
}

/** The mail a follower gets: plain text, the update in full, and how to stop these mails. */
function updateMail(update: UpdateToTell, baseUrl: string): { subject: string; text: string } {
  return {
    subject: `${update.listing_name}: ${update.title}`,
    text: [
      `${update.listing_name} posted an update.`,
      '',
      update.title,
      '',
      update.body,
      '',
      `See the listing: ${absoluteUrl(baseUrl, paths.listing(update.listing_slug))}`,
      '',
      `You get this mail because you follow ${update.listing_name}. To stop, unfollow it`,
      `(unfollow_listing, DELETE ${absoluteUrl(baseUrl, paths.apiRoute(`/listings/${update.listing_id}/follow`))}).`,
    ].join('\n'),
  };
}
