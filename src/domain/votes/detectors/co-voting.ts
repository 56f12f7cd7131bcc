import type { Detection, VoteWeek } from './types.ts';

/** Accounts that must share a set of three listings before it can be a ring. */
export const RING_MIN_ACCOUNTS = 8;
/** A pair of listings needs more: pairs of related launches are common. */
export const PAIR_RING_MIN_ACCOUNTS = 15;
/** How much more often than chance a set must be voted for together. */
export const RING_MIN_LIFT = 10;
/** Chance (Poisson tail) below which shared votes are "far beyond chance". */
export const RING_MAX_CHANCE = 1e-6;
/** Voters with more votes than this in the week are not a small-set ring (and are not enumerated). */
export const RING_MAX_SET = 6;

/**
 * `co_voting_ring`: groups of accounts that vote for the same small set of listings far beyond
 * chance. For every set of three (then two) listings voted for together by accounts with at most
 * RING_MAX_SET votes this week, the number of accounts sharing it is compared with what
 * independent voting would give (voters × the product of each listing's share of voters). A set
 * shared by at least RING_MIN_ACCOUNTS (pairs: PAIR_RING_MIN_ACCOUNTS) accounts, RING_MIN_LIFT
 * times more than expected and with a chance below RING_MAX_CHANCE is a ring: its accounts'
 * votes on those listings are flagged. Triples first; accounts of a ring are not counted again
 * for pairs. Deterministic: sets are visited in a fixed order.
 */
export function detectCoVotingRings(week: VoteWeek): Detection[] {
  const byUser = new Map<number, Set<number>>();
  for (const v of week.votes) {
    const set = byUser.get(v.userId) ?? new Set<number>();
    set.add(v.listingId);
    byUser.set(v.userId, set);
  }
  const voters = byUser.size;
  if (voters === 0) return [];
  const perListing = new Map<number, number>();
  for (const set of byUser.values()) for (const id of set) perListing.set(id, (perListing.get(id) ?? 0) + 1);

  const out: Detection[] = [];
  const inRing = new Set<number>();
  for (const [size, minAccounts] of [
    [3, RING_MIN_ACCOUNTS],
    [2, PAIR_RING_MIN_ACCOUNTS],
  ] as const) {
    const support = new Map<string, number[]>();
    for (const [userId, set] of byUser) {
      if (inRing.has(userId) || set.size < size || set.size > RING_MAX_SET) continue;
      for (const combo of combinations(
        [...set].sort((a, b) => a - b),
        size,
      )) {
        const key = combo.join(',');
        const users = support.get(key) ?? [];
        users.push(userId);
        support.set(key, users);
      }
    }
    const rings = [...support.entries()]
      .filter(([, users]) => users.length >= minAccounts)
      .map(([key, users]) => {
        const ids = key.split(',').map(Number);
        const expected = ids.reduce((e, id) => (e * perListing.get(id)!) / voters, voters);
        return { ids, users, expected };
      })
      .filter((r) => r.users.length >= RING_MIN_LIFT * r.expected && poissonTail(r.users.length, r.expected) < RING_MAX_CHANCE)
      .sort((a, b) => b.users.length - a.users.length || a.ids.join(',').localeCompare(b.ids.join(',')));
    for (const ring of rings) {
      const members = ring.users.filter((u) => !inRing.has(u)).sort((a, b) => a - b);
      if (members.length < minAccounts) continue;
      const detail = `${members.length} accounts voted together for the same ${size} listings (${ring.ids.join(', ')}); chance alone explains about ${ring.expected.toFixed(2)}`;
      for (const userId of members) {
        inRing.add(userId);
        for (const listingId of ring.ids) out.push({ listingId, userId, reason: 'co_voting_ring', detail });
      }
    }
  }
  return out;
}

function* combinations(items: number[], k: number, start = 0, prefix: number[] = []): Generator<number[]> {
  if (prefix.length === k) {
    yield prefix;
    return;
  }
  for (let i = start; i <= items.length - (k - prefix.length); i++) yield* combinations(items, k, i + 1, [...prefix, items[i]]);
}

/** P(X ≥ k) for X ~ Poisson(mean), summed in log space (k is small: a few dozen at most in a ring). */
export function poissonTail(k: number, mean: number): number {
  if (mean <= 0) return k <= 0 ? 1 : 0;
  let below = 0;
  let logTerm = -mean; // log P(X = 0)
  for (let i = 0; i < k; i++) {
    below += Math.exp(logTerm);
    logTerm += Math.log(mean) - Math.log(i + 1);
  }
  return Math.max(0, 1 - below);
}
