import { BURST_MIN_GROUP, BURST_MIN_VOTES } from '../../domain/votes/detectors/burst.ts';
import { PAIR_RING_MIN_ACCOUNTS, RING_MIN_ACCOUNTS, RING_MIN_LIFT } from '../../domain/votes/detectors/co-voting.ts';
import { CREATED_TOGETHER_MS, NETWORK_ALLOWANCE } from '../../domain/votes/detectors/network-cluster.ts';
import { VOTE_SIGNALS_KEPT_DAYS } from '../../domain/votes/retention.ts';

/** The numbers of the published weight policy (`/ranking-policy`), straight from the detectors. */
export const VOTE_POLICY = {
  networkAllowance: NETWORK_ALLOWANCE,
  createdTogetherHours: CREATED_TOGETHER_MS / 3_600_000,
  ringMinAccounts: RING_MIN_ACCOUNTS,
  pairRingMinAccounts: PAIR_RING_MIN_ACCOUNTS,
  ringMinLift: RING_MIN_LIFT,
  burstMinVotes: BURST_MIN_VOTES,
  burstMinGroup: BURST_MIN_GROUP,
  signalsKeptDays: VOTE_SIGNALS_KEPT_DAYS,
} as const;
