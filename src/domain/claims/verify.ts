import type { Db } from '../../db/knex.ts';
import { queueMail } from '../../mail/outbox.ts';
import { recordVersion } from '../listings/listing-versions.ts';
import type { CheckResult } from './check-result.ts';
import type { ClaimStatus } from './claims.ts';
import { claimExpiredMail, ownershipMovedMail } from './mails.ts';
import { emitClaimVerified } from '../webhooks/emit.ts';

/**
 * What started a check: the workflow's schedule, a request (verify_claim, Check now, support), the
 * emailed link, or the site team's approval (staff_decide_claim).
 */
export type CheckTrigger = 'schedule' | 'request' | 'email_link' | 'staff';

export interface RecordedCheck {
  /** The claim's status after the check. */
  status: ClaimStatus;
  /** Outbox rows queued (the previous owner's mail), for immediate delivery. */
  mailIds: number[];
  /** Claims on the same listing canceled because this one was verified. */
  canceledClaimIds: number[];
}

/**
 * Stores a check; a `found` on a pending, unexpired claim verifies it in the same transaction:
 * the claimant becomes the listing's owner (recorded in its history), the previous owner is
 * mailed, and the listing's other pending claims are canceled. The listing row is locked first,
 * so of two claims found at once the first to commit wins and the other sees itself canceled.
 * Plan, paid sections and orders stay as they are: verified is not paid.
 */
export function recordCheck(
  db: Db,
  claimId: number,
  trigger: CheckTrigger,
  check: CheckResult,
  baseUrl: string,
  now: Date,
): Promise<RecordedCheck> {
  return db.transaction(async (trx) => {
    const found = await trx('claims').where({ id: claimId }).first('listing_id');
    if (!found) return { status: 'canceled' as const, mailIds: [], canceledClaimIds: [] }; // deleted with its listing
    const listingId: number = found.listing_id;
    const listing = await trx('listings').where({ id: listingId }).forUpdate().first('id', 'owner_id', 'name', 'slug');
    const claim = await trx('claims').where({ id: claimId }).forUpdate().first('id', 'user_id', 'status', 'expires_at');
    await trx('claim_checks').insert({ claim_id: claimId, trigger, result: check.result, detail: check.detail });
    const none = { status: claim!.status, mailIds: [], canceledClaimIds: [] };
    if (check.result !== 'found' || claim!.status !== 'pending' || claim!.expires_at <= now) return none;
    await trx('claims').where({ id: claimId }).update({ status: 'verified', closed_at: trx.fn.now() });
    const canceledClaimIds: number[] = await trx('claims')
      .where({ listing_id: listingId, status: 'pending' })
      .update({ status: 'canceled', closed_at: trx.fn.now(), canceled_by_claim_id: claimId })
      .returning('id')
      .then((rows: { id: number }[]) => rows.map((r) => r.id));
    const previous: number | null = listing!.owner_id;
    // The claimant's webhooks hear of it (after the listing is theirs, so the event says so).
    if (previous === claim!.user_id) {
      await emitClaimVerified(trx, claimId);
      return { status: 'verified', mailIds: [], canceledClaimIds };
    }
    await trx('listings').where({ id: listingId }).update({ owner_id: claim!.user_id, updated_at: trx.fn.now() });
    await recordVersion(
      trx,
      listingId,
      { owner_id: { before: previous, after: claim!.user_id } },
      {
        editorId: claim!.user_id,
        operation: 'claim_verified',
        requestId: `claim:${claimId}`,
      },
    );
    const mailIds = previous === null ? [] : await tellPreviousOwner(trx, previous, listing!, claimId, baseUrl);
    await emitClaimVerified(trx, claimId);
    return { status: 'verified', mailIds, canceledClaimIds };
  });
}

/** Mail and an in-app notification (kind listing_claimed) for the owner who lost the listing. */
async function tellPreviousOwner(
  trx: Db,
  ownerId: number,
  listing: { id: number; name: string; slug: string },
  claimId: number,
  baseUrl: string,
): Promise<number[]> {
  await trx('notifications')
    .insert({
      user_id: ownerId,
      kind: 'listing_claimed',
      claim_id: claimId,
      listing_id: listing.id,
      title: `${listing.name} has a new owner`,
      body: 'Another account proved that it controls the listing’s website and owns the listing now.',
    })
    .onConflict(['user_id', 'claim_id'])
    .ignore();
  const owner = await trx('users').where({ id: ownerId }).first('email');
  const mail = ownershipMovedMail(owner!.email, listing, baseUrl, claimId);
  await queueMail(trx, mail);
  return trx('mail_outbox').where({ dedupe_key: mail.dedupeKey }).pluck('id');
}

/** Ends a claim that was not verified in time and queues the claimant's mail; idempotent. */
export function expireClaim(db: Db, claimId: number, baseUrl: string): Promise<{ status: ClaimStatus; mailIds: number[] }> {
  return db.transaction(async (trx) => {
    const claim = await trx('claims as c')
      .join('listings as l', 'l.id', 'c.listing_id')
      .join('users as u', 'u.id', 'c.user_id')
      .where('c.id', claimId)
      .forUpdate('c')
      .first('c.status', 'u.email', 'l.name', 'l.slug');
    if (!claim) return { status: 'canceled', mailIds: [] }; // deleted with its listing
    if (claim.status !== 'pending') return { status: claim.status, mailIds: [] };
    await trx('claims').where({ id: claimId }).update({ status: 'expired', closed_at: trx.fn.now() });
    const mail = claimExpiredMail(claim.email, claim, baseUrl, claimId);
    await queueMail(trx, mail);
    return { status: 'expired', mailIds: await trx('mail_outbox').where({ dedupe_key: mail.dedupeKey }).pluck('id') };
  });
}

/** Claims canceled because `claimId` was verified (their workflows are told to stop). */
export function claimsCanceledBy(db: Db, claimId: number): Promise<number[]> {
  return db('claims').where({ canceled_by_claim_id: claimId }).orderBy('id').pluck('id');
}
