import { createHash } from 'node:crypto';
import type { Db } from '../db/knex.ts';
import type { SigninLimits } from '../config/config.ts';
import {
  countPoint,
  forgetPoints,
  forgetPointsStartingWith,
  givePoints,
  RateLimitedError,
  takePoints,
  type RateLimit,
} from '../domain/quotas/rate-limit.ts';

export type { SigninLimits };

/** An attempt under way: what `finishAttempt` needs to give its points back. */
export interface Attempt {
  email: string;
  ip: string;
}

export type AttemptStart = { ok: true; attempt: Attempt; delayMs: number } | { ok: false; retryAfterSeconds: number };

// The limits on the shared rate limiter (src/domain/quotas/rate-limit.ts). Emails are keyed by
// their SHA-256: the table's keys stay short, and it holds no addresses.
const pairLimit = (l: SigninLimits): RateLimit => ({ name: 'signin-email-ip', points: l.perEmail, seconds: l.windowSeconds });
const ipLimit = (l: SigninLimits): RateLimit => ({ name: 'signin-ip', points: l.perIp, seconds: l.windowSeconds });
/** Failures on an email from everywhere: never refused, only counted for the slow-down. */
const emailCounter = (l: SigninLimits): RateLimit => ({ name: 'signin-email', points: Number.MAX_SAFE_INTEGER, seconds: l.windowSeconds });

// Addresses compare case-insensitively (the users table's citext).
const emailKey = (email: string) => createHash('sha256').update(email.toLowerCase()).digest('hex');
const pairKey = (email: string, ip: string) => `${emailKey(email)}:${ip}`;

/**
 * Counts a sign-in attempt as a failure before the password is checked (a success gives it back
 * in `finishAttempt`), on the shared rate limiter, so concurrent attempts across many api
 * processes see each other: a client address is refused (429) after too many failures overall
 * or on one email within the window. A refused attempt takes no point, so hammering does not
 * extend the lockout. An email address is never blocked for everyone, or anybody could lock its
 * owner out by guessing from elsewhere: past `perEmail` failures from all addresses, each attempt
 * on it waits a delay that doubles with every further failure (1 s, 2 s, 4 s ... up to
 * `maxDelaySeconds`). Windows are fixed, from a key's first failure (the library's model).
 */
export async function beginAttempt(db: Db, limits: SigninLimits, email: string, ip: string): Promise<AttemptStart> {
  try {
    await takePoints(db, [
      { limit: pairLimit(limits), key: pairKey(email, ip) },
      { limit: ipLimit(limits), key: ip },
    ]);
  } catch (err) {
    if (!(err instanceof RateLimitedError)) throw err;
    return { ok: false, retryAfterSeconds: err.retryAfterSeconds };
  }
  const onEmail = await countPoint(db, emailCounter(limits), emailKey(email));
  return { ok: true, attempt: { email, ip }, delayMs: slowDownMs(onEmail - 1, limits) };
}

/** The progressive delay of an attempt on an email address with `failures` recent failures. */
export function slowDownMs(failures: number, limits: Pick<SigninLimits, 'perEmail' | 'maxDelaySeconds'>): number {
  if (failures < limits.perEmail) return 0;
  return Math.min(1000 * 2 ** Math.min(failures - limits.perEmail, 20), limits.maxDelaySeconds * 1000);
}

/**
 * Records how an attempt ended. A failure keeps its points. A success forgets the failures of
 * that email from that client address, its own point included (the owner's own typos), in every
 * count, not those from elsewhere: signing in must not reset the count of someone guessing from
 * another address.
 */
export async function finishAttempt(db: Db, limits: SigninLimits, attempt: Attempt, outcome: 'success' | 'failure'): Promise<void> {
  if (outcome === 'failure') return;
  // The library counts refused tries too; at most `perEmail` of them were let through.
  const own = Math.min(limits.perEmail, await forgetPoints(db, pairLimit(limits), pairKey(attempt.email, attempt.ip)));
  if (own === 0) return;
  await Promise.all([givePoints(db, ipLimit(limits), attempt.ip, own), givePoints(db, emailCounter(limits), emailKey(attempt.email), own)]);
}

/** Clears an email's failures, from every address (after a password reset). */
export async function forgetFailures(db: Db, email: string): Promise<void> {
  // Forgetting needs only the limits' names, not their sizes.
  const names: SigninLimits = { perEmail: 1, perIp: 1, windowSeconds: 1, maxDelaySeconds: 0 };
  await forgetPoints(db, emailCounter(names), emailKey(email));
  await forgetPointsStartingWith(db, pairLimit(names), `${emailKey(email)}:`);
}
