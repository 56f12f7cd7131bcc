import type { Db } from '../../db/knex.ts';
import { appError } from '../../errors/errors.ts';
import type { MailKind } from './kinds.ts';
import { isStopped, stopMail } from './stops.ts';
import { mailLinkKey, readStopToken } from './tokens.ts';

/** What a one-click link stops, and whether it is stopped now. */
export interface StopLink {
  kind: MailKind;
  /** The listing whose mails it stops; null when it stops the kind for every listing. */
  listing: { id: number; name: string; slug: string } | null;
  /** True once the mails are stopped (by this link, another, or the account page). */
  stopped: boolean;
}

/** Reads a link without changing anything (a GET: link scanners open links too). Null when forged. */
export async function openStopLink(db: Db, token: string): Promise<StopLink | null> {
  const stop = readStopToken(await mailLinkKey(db), token);
  if (!stop) return null;
  const listing =
    stop.listingId === null ? null : ((await db('listings').where({ id: stop.listingId }).first('id', 'name', 'slug')) ?? null);
  // A link about a listing that is gone has nothing left to stop.
  if (stop.listingId !== null && !listing) return null;
  return { kind: stop.kind, listing, stopped: await isStopped(db, stop) };
}

/**
 * Uses a link: stops what it names, at once and idempotently (a mail client's one-click POST and
 * a person's button both land here, and may both come). A forged or altered token changes nothing.
 */
export async function useStopLink(db: Db, token: string): Promise<StopLink> {
  const stop = readStopToken(await mailLinkKey(db), token);
  const invalid = () => appError('unsubscribe_link_invalid', 'This unsubscribe link is incomplete or was changed, so nothing was stopped.');
  if (!stop) throw invalid();
  await stopMail(db, stop);
  const link = await openStopLink(db, token);
  if (!link) throw invalid();
  return link;
}
