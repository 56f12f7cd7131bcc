/**
 * Votes counted against votes cast: what the launch-day traffic saw accepted (a vote or an unvote
 * answered 303 with its notice), replayed with the domain's rules, against what the database holds.
 */

/** One accepted vote (+1) or unvote (-1) of an account on a listing, in the order they were answered. */
export interface VoteEvent {
  listingId: number;
  userId: number;
  change: 1 | -1;
}

/**
 * Votes each listing should hold after `events`: voting twice changes nothing and neither does
 * unvoting without a vote (as castVote and withdrawVote do), so only each pair's last state counts.
 */
export function expectedVotes(events: VoteEvent[]): Map<number, number> {
  const holding = new Set<string>();
  const perListing = new Map<number, number>();
  for (const e of events) {
    const pair = `${e.listingId}:${e.userId}`;
    if (!perListing.has(e.listingId)) perListing.set(e.listingId, 0);
    if (e.change === 1 && !holding.has(pair)) {
      holding.add(pair);
      perListing.set(e.listingId, perListing.get(e.listingId)! + 1);
    } else if (e.change === -1 && holding.delete(pair)) {
      perListing.set(e.listingId, perListing.get(e.listingId)! - 1);
    }
  }
  return perListing;
}

export interface VoteMismatch {
  listingId: number;
  expected: number;
  counted: number;
}

/**
 * Listings whose counted votes differ from the expected ones, beyond `slack` (per listing: pairs
 * whose last request got no answer, so their state is unknown). A listing missing from `counted`
 * counts 0.
 */
export function voteMismatches(
  expected: Map<number, number>,
  counted: Map<number, number>,
  slack: Map<number, number> = new Map(),
): VoteMismatch[] {
  const ids = new Set([...expected.keys(), ...counted.keys()]);
  const mismatches: VoteMismatch[] = [];
  for (const listingId of [...ids].sort((a, b) => a - b)) {
    const want = expected.get(listingId) ?? 0;
    const got = counted.get(listingId) ?? 0;
    if (Math.abs(want - got) > (slack.get(listingId) ?? 0)) mismatches.push({ listingId, expected: want, counted: got });
  }
  return mismatches;
}
