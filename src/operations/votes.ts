import { castVote, withdrawVote, type VoteOutcome } from '../domain/ranking/votes.ts';
import { addWeeks } from '../domain/ranking/weeks.ts';
import { callerId, type OperationContext } from './operation.ts';

/**
 * Votes are cast by people only (DESIGN §7: web, signed in, confirmed email; no agent tool), so
 * they are deliberately not in the registry: no REST route, no MCP tool. The vote forms call
 * these with the page's context, whose principal is the signed-in person.
 */

/** The caller's vote on a live listing (refusals as castVote's AppErrors). */
export const voteFor = (ctx: OperationContext, listingId: number): Promise<VoteOutcome> =>
  castVote(ctx.db, callerId(ctx), listingId, ctx.config.baseUrl);

/** Takes the caller's vote back while the listing's launch week runs. */
export const withdrawVoteFor = (ctx: OperationContext, listingId: number): Promise<VoteOutcome> =>
  withdrawVote(ctx.db, callerId(ctx), listingId);

/** When a vote can no longer be taken back: the end of the launch week (Monday `launchWeek` + 7 days), in ms. */
export const unvoteClosesAt = (launchWeek: string): number => Date.parse(`${addWeeks(launchWeek, 1)}T00:00:00Z`);
