import type { ClaimSettings } from '../../config/config.ts';
import type { Db } from '../../db/knex.ts';
import { AppError, conflict, tooManyRequests } from '../../errors/errors.ts';
import { RateLimitedError, takeCooldown } from '../quotas/rate-limit.ts';
import type { WorkflowStarter } from '../ports.ts';
import type { ClaimWorkflowInput } from './claim-flow.ts';
import { getClaim, getOwnClaim, type ClaimRow } from './claims.ts';

type ClaimWorkflows = Pick<WorkflowStarter, 'startClaim' | 'verifyClaimNow'>;

/** The workflow input of a claim: its own times from the row, the schedule from the settings. */
export function claimWorkflowInput(
  claim: Pick<ClaimRow, 'id' | 'listing_id' | 'slug' | 'method' | 'created_at' | 'expires_at'>,
  settings: ClaimSettings,
  mailIds: number[] = [],
) {
  return {
    claimId: claim.id,
    listingId: claim.listing_id,
    slug: claim.slug,
    method: claim.method,
    startedAt: claim.created_at.getTime(),
    expiresAt: claim.expires_at.getTime(),
    schedule: settings.schedule,
    mailIds,
  } satisfies ClaimWorkflowInput & { listingId: number; slug: string };
}

/**
 * verify_claim and "Check now": the claimant's pending dns/meta/file claim is checked at once by
 * its workflow (Update `verifyNow`), at most once per `verifyIntervalMs`; returns the claim after.
 */
export async function requestClaimCheck(
  db: Db,
  workflows: ClaimWorkflows,
  settings: ClaimSettings,
  userId: number,
  claimId: number,
): Promise<ClaimRow> {
  const claim = await getOwnClaim(db, userId, claimId);
  if (claim.method === 'email') {
    throw conflict(
      'claim_verified_by_email',
      `Claim ${claimId} is verified by the link we mailed to ${claim.email}: open it while signed in; there is nothing to check.`,
    );
  }
  if (claim.status !== 'pending')
    throw conflict('claim_not_pending', `Claim ${claimId} is ${claim.status}; only a pending claim is checked.`);
  await takeCheckSlot(db, claimId, settings.verifyIntervalMs);
  await checkThroughWorkflow(workflows, claim, settings);
  return getOwnClaim(db, userId, claimId);
}

/** claims:recheck (support): any pending claim, no rate limit; restarts its workflow when it had closed. */
export async function recheckClaim(db: Db, workflows: ClaimWorkflows, settings: ClaimSettings, claimId: number): Promise<ClaimRow> {
  const claim = await getClaim(db, claimId);
  if (!claim) throw new AppError('not_found', `Claim ${claimId} was not found.`);
  if (claim.status !== 'pending')
    throw conflict('claim_not_pending', `Claim ${claimId} is ${claim.status}; only a pending claim is checked.`);
  if (claim.method === 'email') await workflows.startClaim(claimWorkflowInput(claim, settings));
  else await checkThroughWorkflow(workflows, claim, settings);
  return (await getClaim(db, claimId))!;
}

/** Update `verifyNow`; a workflow that closed while its claim is still pending is started again first. */
async function checkThroughWorkflow(workflows: ClaimWorkflows, claim: ClaimRow, settings: ClaimSettings): Promise<void> {
  if (await workflows.verifyClaimNow(claim.id)) return;
  await workflows.startClaim(claimWorkflowInput(claim, settings));
  await workflows.verifyClaimNow(claim.id);
}

/** Takes the claim's check slot on the shared rate limiter; 429 with Retry-After while the last one is too recent. */
async function takeCheckSlot(db: Db, claimId: number, intervalMs: number): Promise<void> {
  try {
    await takeCooldown(db, 'claim-check', String(claimId), intervalMs / 1000);
  } catch (err) {
    if (!(err instanceof RateLimitedError)) throw err;
    const seconds = err.retryAfterSeconds;
    throw tooManyRequests(
      `Claim ${claimId} was checked moments ago; checks are at most one per ${intervalMs / 1000} seconds. Retry in ${seconds} s.`,
      seconds,
    );
  }
}
