import type { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { Db } from '../../db/knex.ts';
import { rateLimiterFlexible } from './rate-limiter-flexible.ts';

/**
 * THE rate limiter of tries (wrong promo codes, OAuth registrations, sign-in failures and their
 * slow-down per email, the cooldowns of owner-triggered checks): one 429, `rate_limited` with
 * `Retry-After`, from the callers. rate-limiter-flexible over the `rate_limits` table
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
async function limiterOf(db: Db, limit: RateLimit): Promise<RateLimiterPostgres> {
  const { RateLimiterPostgres } = await rateLimiterFlexible();
  return new RateLimiterPostgres({
    storeClient: db,
    storeType: 'knex',
    tableName: RATE_LIMITS_TABLE,
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix: limit.name,
    points: limit.points,
    duration: limit.seconds,
  });
}

/**
 * Takes one point of every claim, or none: when any limit is spent, the points already taken are
 * given back and RateLimitedError says how long until that limit's window ends.
 */
export async function takePoints(db: Db, claims: readonly RateClaim[]): Promise<TakenPoints> {
  const taken: { limiter: RateLimiterPostgres; key: string }[] = [];
  const giveBack = async () => {
    await Promise.all(taken.map(({ limiter, key }) => limiter.reward(key, 1)));
  };
  const { RateLimiterRes } = await rateLimiterFlexible();
  for (const { limit, key } of claims) {
    const limiter = await limiterOf(db, limit);
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

/**
 * A cooldown: at most one `name` action per `key` every `seconds` (a claim's "Check now", a
 * listing's badge recheck). Throws RateLimitedError with the wait while the last one is too recent.
 */
export async function takeCooldown(db: Db, name: string, key: string, seconds: number): Promise<void> {
  if (seconds <= 0) return; // no cooldown (a duration of 0 would make the library's points never expire)
  await takePoints(db, [{ limit: { name, points: 1, seconds }, key }]);
}

/** Adds one point to `key` without a cap (a counter over the window) and returns the points in it now. */
export async function countPoint(db: Db, limit: RateLimit, key: string): Promise<number> {
  const limiter = await limiterOf(db, limit);
  const res = await limiter.penalty(key, 1);
  return res.consumedPoints;
}

/** Gives `points` of `key` back (an attempt that turned out not to count). */
export async function givePoints(db: Db, limit: RateLimit, key: string, points = 1): Promise<void> {
  const limiter = await limiterOf(db, limit);
  await limiter.reward(key, points);
}

/** Forgets every point of `key` under `limit`; returns how many there were in the current window. */
export async function forgetPoints(db: Db, limit: RateLimit, key: string): Promise<number> {
  const limiter = await limiterOf(db, limit);
  const held = (await limiter.get(key))?.consumedPoints ?? 0;
  await limiter.delete(key);
  return Math.max(0, held);
}

/**
 * Forgets the points of every key of `limit` that starts with `keyStart` (the library has no
 * such call; its PostgreSQL rows are keyed `${name}:${key}`, see migration 023).
 */
export async function forgetPointsStartingWith(db: Db, limit: RateLimit, keyStart: string): Promise<void> {
  const pattern = `${limit.name}:${keyStart}`.replace(/[\\%_]/g, (c) => `\\${c}`) + '%';
  await db(RATE_LIMITS_TABLE).where('key', 'like', pattern).delete();
}
