import { removedVotes, type RemovedVotes } from '../../domain/ranking/voided-votes.ts';
import { votedListingIds } from '../../domain/ranking/votes.ts';
import type { OperationContext } from '../operation.ts';

/**
 * What the vote controls read (votes are cast through src/operations/votes.ts): the listings'
 * counts and owners, the caller's own votes, and the votes the site team removed.
 */

/** What the vote control of one listing needs to know. */
export interface VoteTarget {
  id: number;
  slug: string;
  name: string;
  votes: number;
  owner_id: number | null;
  launch_week: string | null;
}

/** The vote targets of these listings, any status, in no particular order. */
export function voteTargets(c: Pick<OperationContext, 'db'>, listingIds: number[]): Promise<VoteTarget[]> {
  return c.db('listings').whereIn('id', listingIds).select('id', 'slug', 'name', 'votes', 'owner_id', 'launch_week');
}

/** Which of these listings the caller voted for; none for a visitor. */
export async function votedByCaller(c: Pick<OperationContext, 'db' | 'principal'>, listingIds: number[]): Promise<Set<number>> {
  return c.principal ? votedListingIds(c.db, c.principal.userId, listingIds) : new Set();
}

/** The public count of a listing's removed votes, with their reasons. */
export function removedVotesOf(c: Pick<OperationContext, 'db'>, listingId: number): Promise<RemovedVotes> {
  return removedVotes(c.db, listingId);
}
