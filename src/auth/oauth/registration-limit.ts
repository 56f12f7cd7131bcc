import type { Db } from '../../db/knex.ts';
import { RateLimitedError, takePoints } from '../../domain/quotas/rate-limit.ts';
import { tooManyRequests } from '../../errors/errors.ts';
import type { RegistrationLimit } from '../../config/config.ts';

export type { RegistrationLimit };

/**
 * Counts an open dynamic registration of `ip`, or refuses it (429 rate_limited with Retry-After)
 * past the limit, on the shared rate limiter: a burst across api processes lets exactly the limit
 * through, and the window is fixed, so hammering does not push the wait further out.
 */
export async function limitRegistrations(db: Db, limit: RegistrationLimit, ip: string): Promise<void> {
  try {
    await takePoints(db, [{ limit: { name: 'oauth-registration', points: limit.perIp, seconds: limit.windowSeconds }, key: ip }]);
  } catch (err) {
    if (!(err instanceof RateLimitedError)) throw err;
    throw tooManyRequests(
      `This address registered ${limit.perIp} OAuth clients within ${limit.windowSeconds} seconds, the limit. Reuse a registered client or retry later.`,
      err.retryAfterSeconds,
    );
  }
}
