import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createAppSecrets } from '../../auth/secrets.ts';
import type { Db } from '../../db/knex.ts';

/**
 * The newsletter's two links. The confirmation link carries a random token of which only the
 * SHA-256 is stored: it works once (the hash is cleared when used) and until it expires. The
 * unsubscribe link is signed, not stored (`{subscriber}.{HMAC-SHA256}` with the app secret
 * `newsletter-unsubscribe`), so a link in an old mail keeps working and nobody can make one for
 * another subscriber.
 */

const KEY_NAME = 'newsletter-unsubscribe';

/** A new confirmation token and the hash to store. */
export function newConfirmToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashConfirmToken(token) };
}

export const hashConfirmToken = (token: string) => createHash('sha256').update(`newsletter-confirm:v1:${token}`).digest('hex');

/** Whether a string can be a confirmation token at all (before any lookup). */
export const isConfirmTokenShaped = (token: string) => /^[A-Za-z0-9_-]{43}$/.test(token);

/** The signing key of unsubscribe links; read once per batch of mail. */
export const unsubscribeKey = (db: Db): Promise<Buffer> => createAppSecrets(db).get(KEY_NAME);

export function signUnsubscribe(key: Buffer, subscriberId: number): string {
  return `${subscriberId}.${mac(key, subscriberId)}`;
}

/** The subscriber an unsubscribe token names, or null when we did not make it. */
export function readUnsubscribeToken(key: Buffer, token: string): number | null {
  const match = /^([1-9]\d{0,9})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return null;
  const id = Number(match[1]);
  return timingSafeEqual(Buffer.from(match[2]!), Buffer.from(mac(key, id))) ? id : null;
}

const mac = (key: Buffer, id: number) => createHmac('sha256', key).update(`newsletter-stop:v1:${id}`).digest('base64url');
