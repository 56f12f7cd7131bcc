import type { Config } from '../config/config.ts';
import type { Db } from '../db/knex.ts';
import { checkClaimNow, type ClaimCheckReport } from '../domain/claims/check.ts';
import { getClaim, type ClaimStatus } from '../domain/claims/claims.ts';
import { claimsCanceledBy, expireClaim, type CheckTrigger } from '../domain/claims/verify.ts';
import type { Clock } from '../domain/time/clock.ts';

export interface ClaimActivityDeps {
  db: Db;
  config: Config;
  /** A check that finds the proof after the claim expired does not verify it. */
  clock: Clock;
}

/** Where a claim stands after something outside the workflow (the emailed link, another claim) acted on it. */
export interface ClaimReview {
  status: ClaimStatus;
  /** Claims this one's verification canceled (their workflows are told). */
  canceledClaimIds: number[];
  /** Unsent mail of the verification (the previous owner's), for delivery. */
  mailIds: number[];
}

/** Activities of the claim workflow; thin wrappers over domain code. */
export function createClaimActivities({ db, config, clock }: ClaimActivityDeps) {
  return {
    /** Checks the DNS record, meta tag or file once and records the check (which may verify the claim). */
    async checkClaim(claimId: number, trigger: CheckTrigger): Promise<ClaimCheckReport> {
      const deps = { db, crawl: config.crawl, dnsServers: config.claims.dnsServers, baseUrl: config.baseUrl, now: clock.now() };
      return checkClaimNow(deps, claimId, trigger);
    },
    async reviewClaim(claimId: number): Promise<ClaimReview> {
      const claim = await getClaim(db, claimId);
      if (!claim) return { status: 'canceled', canceledClaimIds: [], mailIds: [] }; // deleted with its listing
      if (claim.status !== 'verified') return { status: claim.status, canceledClaimIds: [], mailIds: [] };
      const mailIds: number[] = await db('mail_outbox')
        .where({ dedupe_key: `claim-transfer:${claimId}` })
        .whereNull('sent_at')
        .pluck('id');
      return { status: 'verified', canceledClaimIds: await claimsCanceledBy(db, claimId), mailIds };
    },
    /** Ends a claim that ran out of time; its mail is returned for delivery. */
    async expireClaim(claimId: number): Promise<{ status: ClaimStatus; mailIds: number[] }> {
      return expireClaim(db, claimId, config.baseUrl);
    },
  };
}

export type ClaimActivities = ReturnType<typeof createClaimActivities>;
