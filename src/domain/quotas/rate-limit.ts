import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '../../db/knex.ts';

/**
 * THE rate limiter of tries (wrong promo codes, OAuth registrations; the sign-in limiter, with
 * its slow-down per email, is still its own): rate-limiter-flexible over the `rate_limits` table
 * (migration 023), through the app's knex pool. A try takes its point in one atomic upsert
 * *before* it is evaluated, so concurrent tries across api processes cannot all see room: 30
 * parallel tries against a limit of 5 evaluate exactly 5. Windows are fixed, starting at a key's
 * first point (the library's model).
 */

/** One limit: at most `points` tries per key in `seconds`. `name` prefixes its keys in the table. */
export interface RateLimit {
  name: string;
  points: number;
  seconds: number;
}

/** A point to take: `key` (an account id, a client address) counted against `limit`. */
export interface RateClaim {
  limit: RateLimit;
  key: string;
}

/** The points a try took; `giveBack` returns them when the try turns out not to count (a right code). */
export interface TakenPoints {
  giveBack(): Promise<void>;
}

/** Thrown by `takePoints` when a limit is spent: when its window ends, in whole seconds (≥ 1). */
export class RateLimitedError extends Error {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super(`Rate limited for ${retryAfterSeconds} s`);
    this.name = 'RateLimitedError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The table every limit shares (keys are prefixed by the limit's name). */
export const RATE_LIMITS_TABLE = 'rate_limits';

// Built per call: the constructor only keeps its options (the table exists; expired rows are
// purged by the maintenance workflow, not by a timer per instance).
const limiterOf = (db: Db, limit: RateLimit) =>
  new RateLimiterPostgres({
    storeClient: db,
    storeType: 'knex',
    tableName: RATE_LIMITS_TABLE,
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix: limit.name,
    points: limit.points,
    duration: limit.seconds,
  });

/**
 * Takes one point of every claim, or none: when any limit is spent, the points already taken are
 * given back and RateLimitedError says how long until that limit's window ends.
 */
export async function takePoints(db: Db, claims: readonly RateClaim[]): Promise<TakenPoints> {
  const taken: { limiter: RateLimiterPostgres; key: string }[] = [];
  const giveBack = async () => {
    await Promise.all(taken.map(({ limiter, key }) => limiter.reward(key, 1)));
  };
  for (const { limit, key } of claims) {
    const limiter = limiterOf(db, limit);
    try {
      await limiter.consume(key, 1);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err; // the store failed: not a refusal
      await giveBack();
      throw new RateLimitedError(Math.max(1, Math.ceil(err.msBeforeNext / 1000)));
    }
    taken.push({ limiter, key });
  }
  return { giveBack };
}
