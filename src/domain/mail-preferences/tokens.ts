import { createHmac, timingSafeEqual } from 'node:crypto';
import { createAppSecrets } from '../../auth/secrets.ts';
import type { Db } from '../../db/knex.ts';
import { isMailKind, type MailStop } from './kinds.ts';

/** The app secret (src/auth/secrets.ts, shared through PostgreSQL) one-click links are signed with. */
const KEY_NAME = 'mail-unsubscribe';

/** The signing key of one-click links; read once per batch of mail, not per mail. */
export function mailLinkKey(db: Db): Promise<Buffer> {
  return createAppSecrets(db).get(KEY_NAME);
}

/**
 * A one-click unsubscribe token: `{user}.{kind}.{listing or 0}.{HMAC-SHA256}`. Signed, not
 * stored: nothing to look up or expire, a link in a years-old mail still works, and without the
 * server secret nobody can make one for another person, kind or listing (changing any part
 * breaks the MAC).
 */
export function signStop(key: Buffer, stop: MailStop): string {
  const body = `${stop.userId}.${stop.kind}.${stop.listingId ?? 0}`;
  return `${body}.${mac(key, body)}`;
}

/** The stop a token names, or null when it was not made by us (forged, altered, cut short). */
export function readStopToken(key: Buffer, token: string): MailStop | null {
  const match = /^([1-9]\d{0,9})\.([a-z_]{1,40})\.(0|[1-9]\d{0,9})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return null;
  const [, user, kind, listing, sent] = match as unknown as [string, string, string, string, string];
  const expected = Buffer.from(mac(key, `${user}.${kind}.${listing}`));
  if (!timingSafeEqual(Buffer.from(sent), expected) || !isMailKind(kind)) return null;
  return { userId: Number(user), kind, listingId: listing === '0' ? null : Number(listing) };
}

const mac = (key: Buffer, body: string) => createHmac('sha256', key).update(`mail-stop:v1:${body}`).digest('base64url');
