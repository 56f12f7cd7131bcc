import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/knex.ts';
import { conflict, notFound } from '../../errors/errors.ts';
import { queueMail } from '../../mail/outbox.ts';
import { paths } from '../../lib/paths.ts';
import { claimLinkMail } from './mails.ts';

/** Links of one claim: the first and at most 3 re-sends. */
export const MAX_CLAIM_LINKS = 4;
/** A link works for 7 days at most (and never after its claim expired). */
export const CLAIM_LINK_LIFETIME_MS = 7 * 86_400_000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Creates a single-use link and queues its mail inside the caller's transaction; returns the outbox id. */
export async function issueClaimLink(trx: Db, o: { claimId: number; to: string; expiresAt: Date; baseUrl: string }): Promise<number> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Math.min(o.expiresAt.getTime(), Date.now() + CLAIM_LINK_LIFETIME_MS));
  await trx('claim_email_links').insert({ claim_id: o.claimId, token_hash: hashToken(token), expires_at: expiresAt });
  const listing = await trx('claims as c').join('listings as l', 'l.id', 'c.listing_id').where('c.id', o.claimId).first('l.name');
  const dedupeKey = `claim-link:${hashToken(token)}`;
  await queueMail(trx, { ...claimLinkMail(o.to, listing.name, `${o.baseUrl}${paths.claimLink}?token=${token}`, expiresAt), dedupeKey });
  return (await trx('mail_outbox').where({ dedupe_key: dedupeKey }).first('id'))!.id;
}

/** Sends a pending email claim's link again (at most 3 times); returns the outbox id. */
export async function resendClaimLink(db: Db, userId: number, claimId: number, baseUrl: string): Promise<number> {
  return db.transaction(async (trx) => {
    const claim = await trx('claims')
      .where({ id: claimId, user_id: userId })
      .forUpdate()
      .first('id', 'method', 'status', 'email', 'expires_at');
    if (!claim) throw notFound(`Claim ${claimId}`);
    if (claim.method !== 'email')
      throw conflict('claim_not_email', `Claim ${claimId} is verified by ${claim.method}, not by an emailed link.`);
    if (claim.status !== 'pending')
      throw conflict('claim_not_pending', `Claim ${claimId} is ${claim.status}; only a pending claim gets a new link.`);
    const [{ count }] = await trx('claim_email_links').where({ claim_id: claimId }).count({ count: '*' });
    if (Number(count) >= MAX_CLAIM_LINKS) {
      throw conflict(
        'claim_resend_limit',
        `The link of claim ${claimId} was sent ${MAX_CLAIM_LINKS} times already, the limit; start a new claim after it expires.`,
      );
    }
    return issueClaimLink(trx, { claimId, to: claim.email!, expiresAt: claim.expires_at, baseUrl });
  });
}

export interface ClaimLink {
  id: number;
  claim_id: number;
  user_id: number;
  status: string;
  used_at: Date | null;
  link_expires_at: Date;
  claim_expires_at: Date;
  slug: string;
  listing_name: string;
}

/** The link of a token with its claim, or undefined. */
export async function findClaimLink(db: Db, token: string): Promise<ClaimLink | undefined> {
  if (!token || token.length > 100) return undefined;
  return db('claim_email_links as k')
    .join('claims as c', 'c.id', 'k.claim_id')
    .join('listings as l', 'l.id', 'c.listing_id')
    .where('k.token_hash', hashToken(token))
    .first(
      'k.id',
      'k.claim_id',
      'c.user_id',
      'c.status',
      'k.used_at',
      'k.expires_at as link_expires_at',
      'c.expires_at as claim_expires_at',
      'l.slug',
      'l.name as listing_name',
    );
}

/** Uses a link up atomically inside the caller's transaction: of two concurrent uses one wins. */
export async function useClaimLink(trx: Db, linkId: number): Promise<boolean> {
  const used = await trx('claim_email_links').where({ id: linkId }).whereNull('used_at').update({ used_at: trx.fn.now() });
  return used === 1;
}
