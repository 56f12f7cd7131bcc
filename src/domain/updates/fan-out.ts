import type { Db } from '../../db/knex.ts';
import { absoluteUrl, paths } from '../../lib/paths.ts';
import { queueMail } from '../../mail/outbox.ts';
import { stoppableMails, type MakeStoppable } from '../mail-preferences/stoppable-mail.ts';
import { stoppedAmong } from '../mail-preferences/stops.ts';

export interface FanOutBatchInput {
  updateId: number;
  /** Keyset cursor: followers with a larger user id than this are next. */
  afterUserId: number;
  limit: number;
  /** A follower gets at most one mail per listing per this window; later updates wait for a digest. */
  mailWindowSeconds: number;
  /** The window is measured from here; a mail sent now starts the follower's next window. */
  now: Date;
}

export interface FanOutBatch {
  /** Followers handled in this batch (notified, and mailed when their address is verified). */
  followers: number;
  /** Cursor for the next batch; null when this was the last one. */
  lastUserId: number | null;
  /** Outbox rows of this batch, for immediate delivery. */
  mailIds: number[];
  /** The update's listing (null when the update is gone). */
  listingId: number | null;
  /** Epoch ms when the digests of followers whose mail this batch held back are due; null when none was. */
  digestDueAt: number | null;
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
  /** No mail about this listing within the window: this update may be mailed at once. */
  mail_now: boolean;
}

/** Dedupe key of the mail that tells one follower about one update. */
export const updateMailKey = (updateId: number, userId: number) => `listing-update:${updateId}:${userId}`;

const NOBODY: FanOutBatch = { followers: 0, lastUserId: null, mailIds: [], listingId: null, digestDueAt: null };

/**
 * Tells one batch of followers about an update: an in-app notification each and, for verified
 * addresses, a mail, in one transaction. Safe to repeat: both are unique per (update, follower).
 * Who is told: followers who followed before the update was published (a stable set however
 * long the fan-out runs), except its author. Mail goes only to verified addresses, so nobody can
 * point our mail at someone else's inbox by following listings under their address.
 * Mail is throttled: one per listing per follower per window. A follower mailed about this
 * listing within the window gets this update in a digest instead (notification `mail_pending`,
 * follower `digest_due_at`); the follower rows are locked, so concurrent fan-outs of one
 * listing's updates decide one after the other and only the first mails at once.
 */
export function tellFollowersBatch(db: Db, input: FanOutBatchInput, baseUrl: string): Promise<FanOutBatch> {
  return db.transaction(async (trx) => {
    const update: UpdateToTell | undefined = await trx('listing_updates as u')
      .join('listings as l', 'l.id', 'u.listing_id')
      .where('u.id', input.updateId)
      .first(
        'u.id',
        'u.listing_id',
        'u.author_id',
        'u.title',
        'u.body',
        'u.published_at',
        'l.name as listing_name',
        'l.slug as listing_slug',
      );
    // Deleted (the listing went away): nobody is left to tell.
    if (!update) return NOBODY;
    const followers: Follower[] = await trx('listing_followers as f')
      .join('users as u', 'u.id', 'f.user_id')
      .where('f.listing_id', update.listing_id)
      .andWhere('f.user_id', '>', input.afterUserId)
      .andWhere('f.created_at', '<=', update.published_at)
      .andWhereRaw('f.user_id IS DISTINCT FROM ?', [update.author_id])
      .orderBy('f.user_id')
      .limit(input.limit)
      .forUpdate('f')
      .select(
        'f.user_id',
        'u.email',
        'u.email_verified_at',
        trx.raw('(f.last_mailed_at IS NULL OR f.last_mailed_at <= ?::timestamptz - make_interval(secs => ?)) AS mail_now', [
          input.now,
          input.mailWindowSeconds,
        ]),
      );
    if (followers.length === 0) return { ...NOBODY, listingId: update.listing_id };
    await trx('notifications')
      .insert(followers.map((f) => ({ user_id: f.user_id, kind: 'listing_update', listing_update_id: update.id })))
      .onConflict(['user_id', 'listing_update_id'])
      .ignore();
    // Followers who stopped these mails (for this listing or all) keep the in-app notification only.
    const stopped = await stoppedAmong(
      trx,
      followers.map((f) => f.user_id),
      'follower_updates',
      update.listing_id,
    );
    const mailable = followers.filter((f) => f.email_verified_at && !stopped.has(f.user_id));
    const stoppable = await stoppableMails(trx, baseUrl);
    const { mailIds, digestDueAt } = await mailOrHold(
      trx,
      update,
      mailable,
      { windowSeconds: input.mailWindowSeconds, now: input.now },
      baseUrl,
      stoppable,
    );
    const last = followers[followers.length - 1]!.user_id;
    const lastUserId = followers.length < input.limit ? null : last;
    return { followers: followers.length, lastUserId, mailIds, listingId: update.listing_id, digestDueAt };
  });
}

/**
 * Mails the update to followers outside the window and holds it for a digest for the rest.
 * A follower whose mail of this update is queued already (a repeated batch) keeps that mail.
 */
async function mailOrHold(
  trx: Db,
  update: UpdateToTell,
  followers: Follower[],
  { windowSeconds, now }: { windowSeconds: number; now: Date },
  baseUrl: string,
  stoppable: MakeStoppable,
) {
  if (followers.length === 0) return { mailIds: [], digestDueAt: null };
  const keys = followers.map((f) => updateMailKey(update.id, f.user_id));
  const queued = new Set<string | null>(await trx('mail_outbox').whereIn('dedupe_key', keys).pluck('dedupe_key'));
  const mailNow = followers.filter((f) => f.mail_now || queued.has(updateMailKey(update.id, f.user_id)));
  const held = followers.filter((f) => !mailNow.includes(f));
  for (const follower of mailNow) {
    const stop = { userId: follower.user_id, kind: 'follower_updates', listingId: update.listing_id } as const;
    await queueMail(
      trx,
      stoppable(stop, { to: follower.email, dedupeKey: updateMailKey(update.id, follower.user_id), ...updateMail(update, baseUrl) }),
    );
  }
  const followerRows = (list: Follower[]) =>
    trx('listing_followers')
      .where({ listing_id: update.listing_id })
      .whereIn(
        'user_id',
        list.map((f) => f.user_id),
      );
  if (mailNow.length) await followerRows(mailNow).update({ last_mailed_at: now });
  let digestDueAt: number | null = null;
  if (held.length) {
    await trx('notifications')
      .where({ listing_update_id: update.id })
      .whereIn(
        'user_id',
        held.map((f) => f.user_id),
      )
      .update({ mail_pending: true });
    const due: { digest_due_at: Date }[] = await followerRows(held)
      .update({ digest_due_at: trx.raw('coalesce(digest_due_at, last_mailed_at + make_interval(secs => ?))', [windowSeconds]) })
      .returning('digest_due_at');
    digestDueAt = Math.max(...due.map((d) => d.digest_due_at.getTime()));
  }
  // Also rows queued by an earlier attempt of this batch: delivery skips what was sent already.
  const mailIds: number[] = mailNow.length ? await trx('mail_outbox').whereIn('dedupe_key', keys).orderBy('id').pluck('id') : [];
  return { mailIds, digestDueAt };
}

/** The mail a follower gets: plain text, the update in full, and why it came (the stop link follows). */
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
      `You get this mail because you follow ${update.listing_name}.`,
    ].join('\n'),
  };
}
