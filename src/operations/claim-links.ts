import { resendClaimLink } from '../domain/claims/email-links.ts';
import { openClaimLink, type LinkOutcome } from '../domain/claims/open-link.ts';
import { callerId, type OperationContext } from './operation.ts';

/**
 * The emailed link of an email claim is a person's step (the claimant opens the emailed link;
 * no operation verifies an email claim), so opening it and mailing it again are deliberately not in
 * the registry: no REST route, no MCP tool. The link's page and the re-send form call these with
 * the page's context, whose principal is the signed-in person (or null).
 */

/** Opens the link as the caller; only the claimant's own session uses it up and verifies. */
export async function openClaimLinkAs(ctx: OperationContext, token: string): Promise<LinkOutcome> {
  const result = await openClaimLink(ctx.db, token, ctx.principal?.userId ?? null, ctx.config.baseUrl, ctx.clock.now());
  if (result.kind === 'verified') await tellWorkflow(ctx, result.claimId);
  return result;
}

/** The workflow stops checking and delivers the previous owner's mail; the sweeper would too. */
async function tellWorkflow(ctx: OperationContext, claimId: number): Promise<void> {
  try {
    await ctx.workflows.signalClaimLinkOpened(claimId);
  } catch (err) {
    ctx.log?.warn({ err, claimId }, 'could not signal the claim workflow; it sees the claim verified at its next check');
  }
}

/** Mails the link of the caller's pending email claim again (refusals as resendClaimLink's AppErrors). */
export function resendClaimLinkFor(ctx: OperationContext, claimId: number): Promise<number> {
  return resendClaimLink(ctx.db, callerId(ctx), claimId, ctx.config.baseUrl);
}
