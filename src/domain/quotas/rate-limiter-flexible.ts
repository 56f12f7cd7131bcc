type RateLimiterFlexible = typeof import('rate-limiter-flexible');

let library: Promise<RateLimiterFlexible> | undefined;

/**
 * The `rate-limiter-flexible` package, imported at its first use: importing it costs about 20 ms
 * of CPU, which every process that builds the services (each test file is one) would pay at
 * startup, though only the limited tries (promo codes, sign-in failures, OAuth registrations,
 * check cooldowns) take points. Its callers are async anyway. The one place that loads it; the
 * other modules import only its types.
 */
export function rateLimiterFlexible(): Promise<RateLimiterFlexible> {
  return (library ??= import('rate-limiter-flexible'));
}
