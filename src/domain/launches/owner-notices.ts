import type { Db } from '../../db/knex.ts';
import { queueMail } from '../../mail/outbox.ts';
import { stoppableMails } from '../mail-preferences/stoppable-mail.ts';
import { isStopped } from '../mail-preferences/stops.ts';

/** The owner's launch panel of a listing (web, /account). */
export const launchPanelUrl = (baseUrl: string, listingId: number) => `${baseUrl}/account/listings/${listingId}`;

export interface LaunchNotice {
  /** Told at most once per key, however often a workflow step is retried. */
  dedupeKey: string;
  subject: string;
  /** One or two sentences; the mail adds the panel link. */
  message: string;
}

/**
 * Tells a listing's owner about their launch: an in-app notification and a mail (to a confirmed
 * address only, like every mail we send, and unless they stopped launch reminders), both once per
 * dedupe key, in the caller's transaction.
 */
export async function tellOwner(trx: Db, baseUrl: string, listingId: number, notice: LaunchNotice): Promise<void> {
  const owner: { id: number; email: string; email_verified_at: Date | null; name: string } | undefined = await trx('listings as l')
    .join('users as u', 'u.id', 'l.owner_id')
    .where('l.id', listingId)
    .first('u.id', 'u.email', 'u.email_verified_at', 'l.name');
  if (!owner) return;
  await trx('notifications')
    .insert({
      user_id: owner.id,
      kind: 'launch',
      listing_id: listingId,
      title: notice.subject,
      body: notice.message,
      dedupe_key: notice.dedupeKey,
    })
    .onConflict('dedupe_key')
    .ignore();
  // A launch reminder is stoppable (the notification stays on the account either way).
  const stop = { userId: owner.id, kind: 'launch_reminders', listingId: null } as const;
  if (!owner.email_verified_at || (await isStopped(trx, stop))) return;
  const stoppable = await stoppableMails(trx, baseUrl);
  await queueMail(
    trx,
    stoppable(stop, {
      to: owner.email,
      dedupeKey: notice.dedupeKey,
      subject: `${owner.name}: ${notice.subject}`,
      text: [notice.message, '', `Your launch panel: ${launchPanelUrl(baseUrl, listingId)}`].join('\n'),
    }),
  );
}
