import type { Db } from '../../db/knex.ts';
import { MAIL_KINDS, type MailKind, type MailStop } from './kinds.ts';

/**
 * Stops one kind of mail for a person (for one listing, or all when `listingId` is null). Safe to
 * repeat: a second stop inserts nothing. Honoured at once: senders check before they queue, and
 * delivery drops a queued mail whose kind was stopped (src/mail/deliver.ts).
 */
export async function stopMail(db: Db, stop: MailStop): Promise<void> {
  await db.raw(
    `INSERT INTO mail_stops (user_id, kind, listing_id)
     SELECT ?, ?, CAST(? AS integer)
     WHERE EXISTS (SELECT 1 FROM users WHERE id = ?)
       AND (CAST(? AS integer) IS NULL OR EXISTS (SELECT 1 FROM listings WHERE id = CAST(? AS integer)))
     ON CONFLICT DO NOTHING`,
    // A link of a deleted account or listing stops nothing: there is nothing left to mail about.
    [stop.userId, stop.kind, stop.listingId, stop.userId, stop.listingId, stop.listingId],
  );
}

/** Receives the kind again (for one listing, or the kind as a whole when `listingId` is null). */
export async function resumeMail(db: Db, stop: MailStop): Promise<void> {
  const rows = db('mail_stops').where({ user_id: stop.userId, kind: stop.kind });
  await (stop.listingId === null ? rows.whereNull('listing_id') : rows.where({ listing_id: stop.listingId })).delete();
}

/** Whether the person stopped this kind of mail, for every listing or for this one. */
export async function isStopped(db: Db, stop: MailStop): Promise<boolean> {
  return (await stoppedAmong(db, [stop.userId], stop.kind, stop.listingId)).size > 0;
}

/** Those of `userIds` who stopped this kind of mail (for every listing, or for `listingId`). */
export async function stoppedAmong(db: Db, userIds: number[], kind: MailKind, listingId: number | null): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const ids: number[] = await db('mail_stops')
    .whereIn('user_id', userIds)
    .andWhere({ kind })
    .andWhere((q) => {
      q.whereNull('listing_id');
      if (listingId !== null) q.orWhere('listing_id', listingId);
    })
    .distinct()
    .pluck('user_id');
  return new Set(ids);
}

export interface MailPreferences {
  kinds: { kind: MailKind; receiving: boolean }[];
  /** Listings whose follower updates the person stopped one by one. */
  stopped_listings: { listing_id: number; name: string; slug: string }[];
}

/** What the person receives: each kind on or off, and the listings stopped one by one. */
export async function readMailPreferences(db: Db, userId: number): Promise<MailPreferences> {
  const [all, perListing] = await Promise.all([
    db('mail_stops').where({ user_id: userId }).whereNull('listing_id').pluck('kind') as Promise<string[]>,
    db('mail_stops as s')
      .join('listings as l', 'l.id', 's.listing_id')
      .where('s.user_id', userId)
      .orderBy('l.name')
      .orderBy('l.id')
      .select('l.id as listing_id', 'l.name', 'l.slug') as Promise<{ listing_id: number; name: string; slug: string }[]>,
  ]);
  return {
    kinds: MAIL_KINDS.map((kind) => ({ kind, receiving: !all.includes(kind) })),
    stopped_listings: perListing,
  };
}

export interface MailPreferenceChanges {
  kinds?: Partial<Record<MailKind, boolean>>;
  /** Follower updates of single listings: true resumes them, false stops them. */
  listings?: { listing_id: number; receiving: boolean }[];
}

/** Applies the changes in one transaction and returns the preferences after them. */
export async function changeMailPreferences(db: Db, userId: number, changes: MailPreferenceChanges): Promise<MailPreferences> {
  await db.transaction(async (trx) => {
    for (const [kind, receiving] of Object.entries(changes.kinds ?? {}) as [MailKind, boolean | undefined][]) {
      if (receiving === undefined) continue;
      const stop: MailStop = { userId, kind, listingId: null };
      await (receiving ? resumeMail(trx, stop) : stopMail(trx, stop));
    }
    for (const change of changes.listings ?? []) {
      const stop: MailStop = { userId, kind: 'follower_updates', listingId: change.listing_id };
      await (change.receiving ? resumeMail(trx, stop) : stopMail(trx, stop));
    }
  });
  return readMailPreferences(db, userId);
}
