import test from 'ava';
import { loadConfig } from '../../../src/config/config.ts';
import { nextCheckDelay } from '../../../src/workflows/claim.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;

test('by default a claim is checked every minute for 5 minutes, every 5 to 1 hour, every 30 to 24 hours, every 4 hours to day 7', (t) => {
  const { claims } = loadConfig({});
  t.deepEqual(claims.schedule, [
    { everyMs: MIN, untilMs: 5 * MIN },
    { everyMs: 5 * MIN, untilMs: HOUR },
    { everyMs: 30 * MIN, untilMs: 24 * HOUR },
    { everyMs: 4 * HOUR, untilMs: 7 * 24 * HOUR },
  ]);
  t.is(claims.lifetimeMs, 7 * 24 * HOUR);
  t.is(claims.verifyIntervalMs, 10_000);
  t.deepEqual(claims.dnsServers, []);
  const at = (elapsed: number) => nextCheckDelay({ startedAt: 1000, schedule: claims.schedule }, 1000 + elapsed);
  t.deepEqual(
    [at(0), at(4 * MIN), at(5 * MIN), at(59 * MIN), at(HOUR), at(23 * HOUR), at(24 * HOUR), at(8 * 24 * HOUR)],
    [MIN, MIN, 5 * MIN, 5 * MIN, 30 * MIN, 30 * MIN, 4 * HOUR, 4 * HOUR],
  );
});

test('claim settings from the environment are checked at start-up', (t) => {
  t.deepEqual(loadConfig({ CLAIM_DNS_SERVERS: '127.0.0.1:5353, [::1]:53' }).claims.dnsServers, ['127.0.0.1:5353', '[::1]:53']);
  for (const env of [
    { CLAIM_DNS_SERVERS: 'dns.google' },
    { CLAIM_CHECK_SCHEDULE: '5m' },
    { CLAIM_CHECK_SCHEDULE: '1m/1h,5m/30m' },
    { CLAIM_LIFETIME: 'forever' },
    { CLAIM_LIFETIME: '0s' },
    { CLAIM_VERIFY_MIN_INTERVAL: '10' },
  ]) {
    t.throws(() => loadConfig(env), { message: new RegExp(`Invalid environment:\\n  ${Object.keys(env)[0]}`) }, JSON.stringify(env));
  }
});
