import type { Config } from '../../config.ts';
import type { Db } from '../../db/knex.ts';
import type { WorkflowStarter } from '../ports.ts';
import { createClaim, deleteClaim, type ClaimRow } from './claims.ts';
import type { ClaimMethod } from './instructions.ts';
import { claimWorkflowInput } from './request-check.ts';

export interface StartClaimDeps {
  db: Db;
  config: Pick<Config, 'claims' | 'baseUrl'>;
  workflows: Pick<WorkflowStarter, 'startClaim'>;
}

/**
 * claim_listing and the web form: creates the claim (or finds the caller's pending one) and
 * starts its workflow; a claim whose workflow cannot start is removed again, mail and all.
 */
export async function startClaim(
  deps: StartClaimDeps,
  input: { userId: number; slug: string; method: ClaimMethod; email?: string },
): Promise<ClaimRow> {
  const { claims, baseUrl } = deps.config;
  const made = await createClaim(deps.db, { ...input, lifetimeMs: claims.lifetimeMs, baseUrl });
  if (!made.created) return made.claim;
  try {
    await deps.workflows.startClaim(claimWorkflowInput(made.claim, claims, made.mailIds));
  } catch (err) {
    await deleteClaim(deps.db, made.claim.id, made.mailIds);
    throw err;
  }
  return made.claim;
}
