import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/knex.ts';
import type { WorkflowStartQueue } from '../ports.ts';
import { recordWorkflowStart } from '../workflow-outbox/starts.ts';
import { claimWorkflowId } from '../../workflows/contracts/workflow-ids.ts';
import { createClaim, type ClaimRow } from './claims.ts';
import type { ClaimMethod } from './instructions.ts';
import { claimWorkflowInput } from './request-check.ts';

export interface StartClaimDeps {
  db: Db;
  config: Pick<Config, 'claims' | 'baseUrl'>;
  workflowStarts: WorkflowStartQueue;
}

/**
 * claim_listing and the web form: creates the claim (or finds the caller's pending one) with the
 * start of its workflow `claim:{id}` in the same transaction; the start is made once committed.
 */
export async function startClaim(
  deps: StartClaimDeps,
  input: { userId: number; slug: string; method: ClaimMethod; email?: string },
): Promise<ClaimRow> {
  const { claims, baseUrl } = deps.config;
  const made = await createClaim(deps.db, {
    ...input,
    lifetimeMs: claims.lifetimeMs,
    baseUrl,
    recordStart: (trx, claim) =>
      recordWorkflowStart(
        trx,
        { kind: 'claim', workflowId: claimWorkflowId(claim.id), input: claimWorkflowInput(claim, claims, claim.mailIds) },
        deps.workflowStarts.inlineLeaseMs(),
      ),
  });
  await deps.workflowStarts.startNow(made.startIds);
  return made.claim;
}
