import { castVote, withdrawVote, type VoteOutcome } from '../domain/ranking/votes.ts';
import { launchWeekEnd } from '../workflows/contracts/weeks.ts';
import { voteSignals, type SecretSource } from '../domain/votes/signals.ts';
import { callerId, type OperationContext } from './operation.ts';

/**
 * Votes are cast by people only (on the web, signed in, with a confirmed email; no agent tool), so
 * they are deliberately not in the registry: no REST route, no MCP tool. The vote forms call
 * these with the page's context, whose principal is the signed-in person.
 */

/** What the page knows about the voter's request besides the context (whose `clientIp` honours TRUST_PROXY_HOPS). */
export interface VoteRequest {
  userAgent: string;
  /** The page that sent the voter to the listing, if any. */
  referrer: string | null;
  /** The service's host, so that its own pages are no outside referrer. */
  ownHost: string;
  /** The app secrets (the weekly key that hashes the client's network). */
  secret: SecretSource;
}

/** The caller's vote on a live listing, with its signals (refusals as castVote's AppErrors). */
export async function voteFor(ctx: OperationContext, listingId: number, request: VoteRequest): Promise<VoteOutcome> {
  const signals = await voteSignals(
    { ip: ctx.clientIp, userAgent: request.userAgent, referrer: request.referrer, ownHost: request.ownHost },
    request.secret,
    ctx.clock.now(),
  );
  return castVote(ctx.db, callerId(ctx), listingId, ctx.clock.now(), ctx.config.baseUrl, signals);
}

/** Takes the caller's vote back while the listing's launch week runs. */
export const withdrawVoteFor = (ctx: OperationContext, listingId: number): Promise<VoteOutcome> =>
  withdrawVote(ctx.db, callerId(ctx), listingId, ctx.clock.now());

/** When a vote can no longer be taken back: the end of the launch week, in ms. */
export const unvoteClosesAt = (launchWeek: string): number => launchWeekEnd(launchWeek).getTime();
