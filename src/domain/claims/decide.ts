import type { Db } from '../../db/knex.ts';
import { AppError, conflict, notFound } from '../../errors/errors.ts';
import { queueMail } from '../../mail/outbox.ts';
import { outcome } from './check-result.ts';
import type { ClaimDecision, ClaimStatus } from './claims.ts';
import { claimDecisionMail } from './mails.ts';
import { recordCheck } from './verify.ts';

export interface ClaimDecisionInput {
  claimId: number;
  /** Only claims on this site's listings are decided here; others are not found. */
  siteId: number;
  decision: ClaimDecision;
  /** The site team's words for the claimant (mailed, and shown on their claim page). */
  reason: string;
  /** The deciding staff member; null for the command line. */
  decidedBy: number | null;
  baseUrl: string;
  now: Date;
}

/** A claim as it stood before and after a decision, for the audit log. */
export interface ClaimDecisionState {
  status: ClaimStatus;
  owner_id: number | null;
  decision: ClaimDecision | null;
}

export interface DecidedClaim {
  before: ClaimDecisionState;
  after: ClaimDecisionState;
  /** Claims the approval canceled (their workflows are told to stop). */
  canceledClaimIds: number[];
}

/**
 * Approves or rejects a pending claim by hand. Approval goes through recordCheck with a `found`
 * check of trigger `staff`, so the claimant becomes the owner exactly as a proof makes them (the
 * history, the previous owner's mail, the other claims canceled, the webhook); rejection closes
 * the claim as `rejected`. Either way the claimant is mailed the reason, and `inTransaction`
 * (the audit row) commits with the effect.
 */
export function decideClaim(
  db: Db,
  input: ClaimDecisionInput,
  inTransaction: (trx: Db, done: DecidedClaim) => Promise<void>,
): Promise<DecidedClaim> {
  return db.transaction(async (trx) => {
    const claim = await lockedClaim(trx, input);
    const before = { status: claim.status, owner_id: claim.owner_id, decision: null };
    let canceledClaimIds: number[] = [];
    if (input.decision === 'approved') {
      const check = outcome('found', `Approved by the site team: ${input.reason}`);
      const recorded = await recordCheck(trx, input.claimId, 'staff', check, input.baseUrl, input.now);
      // Pending but past its expiry (its workflow has not ended it yet): the domain's rule stands.
      if (recorded.status !== 'verified') throw conflict('claim_not_pending', `Claim ${input.claimId} has expired; it cannot be approved.`);
      canceledClaimIds = recorded.canceledClaimIds;
    } else {
      await trx('claims').where({ id: input.claimId }).update({ status: 'rejected', closed_at: trx.fn.now() });
    }
    await trx('claims')
      .where({ id: input.claimId })
      .update({ decision: input.decision, decision_reason: input.reason, decided_by: input.decidedBy, decided_at: input.now });
    await queueMail(
      trx,
      claimDecisionMail(claim.email, claim, { outcome: input.decision, reason: input.reason }, input.baseUrl, input.claimId),
    );
    const owner = await trx('listings').where({ id: claim.listing_id }).first('owner_id');
    const after = {
      status: input.decision === 'approved' ? ('verified' as const) : ('rejected' as const),
      owner_id: owner!.owner_id,
      decision: input.decision,
    };
    const done = { before, after, canceledClaimIds };
    await inTransaction(trx, done);
    return done;
  });
}

/** The claim under a row lock, if it is this site's and still pending; else the refusal in words. */
async function lockedClaim(trx: Db, input: ClaimDecisionInput) {
  const found = await trx('claims').where({ id: input.claimId }).first('listing_id');
  if (!found) throw notFound(`Claim ${input.claimId}`);
  // The listing first, as recordCheck locks it: two deciders (or a check) wait in one order.
  await trx('listings').where({ id: found.listing_id }).forUpdate().first('id');
  const claim = await trx('claims as c')
    .join('listings as l', 'l.id', 'c.listing_id')
    .join('users as u', 'u.id', 'c.user_id')
    .where('c.id', input.claimId)
    .forUpdate('c')
    .first('c.status', 'c.listing_id', 'c.decision', 'l.site_id', 'l.owner_id', 'l.name', 'l.slug', 'u.email');
  if (!claim || claim.site_id !== input.siteId) throw notFound(`Claim ${input.claimId}`);
  if (claim.status === 'verified') {
    throw new AppError(
      'claim_already_verified',
      `Claim ${input.claimId} is verified already${claim.decision === 'approved' ? ' (approved by the site team)' : ''}: the claimant owns the listing; there is nothing to decide.`,
    );
  }
  if (claim.status !== 'pending') {
    throw conflict('claim_not_pending', `Claim ${input.claimId} is ${claim.status}; only a pending claim can be approved or rejected.`);
  }
  return claim as { status: ClaimStatus; listing_id: number; owner_id: number | null; name: string; slug: string; email: string };
}
