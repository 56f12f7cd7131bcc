// Pure (no I/O): the detectors, the scan, the bench and the policy page share these.

/** One vote of the week as the detectors see it: no address, no email, no name. */
export interface WeekVote {
  listingId: number;
  userId: number;
  /** When the vote was cast (ms since the epoch). */
  at: number;
  /** When the voting account was created (ms since the epoch). */
  accountCreatedAt: number;
  /** Keyed hash of the client's /24 or /48 network; null when unknown. */
  network: string | null;
  uaFamily: string;
  referrerHost: string | null;
}

/** How often a listing's Vote button was shown to signed-in accounts in one hour. */
export interface HourViews {
  listingId: number;
  /** Start of the hour (ms since the epoch). */
  hour: number;
  views: number;
}

/** Everything a detector looks at: one launch week of one site. */
export interface VoteWeek {
  votes: WeekVote[];
  views: HourViews[];
}

/** The reason codes, one per detector (stored with the flag, shown in the public audit). */
export const REASON_CODES = ['network_cluster', 'co_voting_ring', 'burst'] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

/** A vote a detector flags. */
export interface Detection {
  listingId: number;
  userId: number;
  reason: ReasonCode;
  /** For the site team: what the detector saw (counts, never an address). */
  detail: string;
}

export type Detector = (week: VoteWeek) => Detection[];

export const HOUR_MS = 3_600_000;
