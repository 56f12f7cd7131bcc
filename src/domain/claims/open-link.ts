import type { Db } from '../../db/knex.ts';
import { outcome } from './check-result.ts';
import { findClaimLink, useClaimLink } from './email-links.ts';
import { recordCheck } from './verify.ts';

/** What opening an emailed claim link did; the landing page says it in words. */
export type LinkOutcome =
  | { kind: 'invalid' }
  | {
      kind: 'sign_in' | 'wrong_account' | 'used' | 'expired' | 'canceled' | 'verified';
      claimId: number;
      slug: string;
      listingName: string;
      mailIds: number[];
    };

/**
 * Opens a claim's emailed link as `userId` (null: not signed in). Only the claimant's own session
 * uses it up; anyone else (a mail scanner, another account) changes nothing.
 */
export async function openClaimLink(db: Db, token: string, userId: number | null, baseUrl: string, at: Date): Promise<LinkOutcome> {
  const link = await findClaimLink(db, token);
  if (!link) return { kind: 'invalid' };
  const about = { claimId: link.claim_id, slug: link.slug, listingName: link.listing_name, mailIds: [] as number[] };
  if (link.used_at || link.status === 'verified') return { kind: 'used', ...about };
  if (link.status === 'canceled') return { kind: 'canceled', ...about };
  const now = at.getTime();
  if (link.status !== 'pending' || link.link_expires_at.getTime() <= now || link.claim_expires_at.getTime() <= now) {
    return { kind: 'expired', ...about };
  }
  if (userId === null) return { kind: 'sign_in', ...about };
  if (userId !== link.user_id) return { kind: 'wrong_account', ...about };
  // The link is used up and the claim verified in one transaction (recordCheck nests as a savepoint).
  const recorded = await db.transaction(async (trx) => {
    if (!(await useClaimLink(trx, link.id))) return null;
    return recordCheck(trx, link.claim_id, 'email_link', outcome('found', 'The emailed link was opened by the claimant.'), baseUrl, at);
  });
  if (!recorded) return { kind: 'used', ...about };
  if (recorded.status === 'verified') return { kind: 'verified', ...about, mailIds: recorded.mailIds };
  return { kind: recorded.status === 'canceled' ? 'canceled' : 'expired', ...about };
}
