import { detectBursts } from './burst.ts';
import { detectCoVotingRings } from './co-voting.ts';
import { detectNetworkClusters } from './network-cluster.ts';
import { REASON_CODES, type Detection, type Detector, type ReasonCode, type VoteWeek } from './types.ts';

/** Every detector, in the order their reasons win when several flag one vote. */
export const DETECTORS: Record<ReasonCode, Detector> = {
  network_cluster: detectNetworkClusters,
  co_voting_ring: detectCoVotingRings,
  burst: detectBursts,
};

/**
 * Runs every detector over a week and returns one flag per vote (listing, account): the first
 * reason in REASON_CODES order wins. Pure and deterministic: the same votes give the same flags,
 * in listing then account order.
 */
export function detectWeek(week: VoteWeek): Detection[] {
  const flags = new Map<string, Detection>();
  for (const reason of REASON_CODES) {
    for (const d of DETECTORS[reason](week)) {
      const key = `${d.listingId}:${d.userId}`;
      if (!flags.has(key)) flags.set(key, d);
    }
  }
  return [...flags.values()].sort((a, b) => a.listingId - b.listingId || a.userId - b.userId);
}
