/** Messages of the claim workflow `claim:{id}` (types only: the workflow imports this). */
import type { ClaimCheckPhase } from '../../config/config.ts';
import type { ClaimCheckReport } from './check.ts';
import type { ClaimStatus } from './claims.ts';

export interface ClaimWorkflowInput {
  claimId: number;
  method: 'dns' | 'meta' | 'file' | 'email';
  /** When the claim started and when it expires (epoch ms, from the claim row). */
  startedAt: number;
  expiresAt: number;
  schedule: ClaimCheckPhase[];
  /** Outbox rows to deliver first (the emailed link). */
  mailIds?: number[];
}

/** The answer of the `verifyNow` update: where the claim stands and what the check saw. */
export interface VerifyNowResult {
  status: ClaimStatus;
  check: ClaimCheckReport['check'];
}
