import test from 'ava';
import { RateLimitedError, takePoints, type RateLimit } from '../../../src/domain/quotas/rate-limit.ts';
import { startTestEnv, type TestEnv } from '../../helpers/env.ts';

/** The shared rate limiter against PostgreSQL: all claims or none, points given back, exact under concurrency. */
let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (err: unknown) => err,
  );

test('a try takes a point of every claim or of none: a spent limit gives the others back', async (t) => {
  const wide: RateLimit = { name: 'test-wide', points: 2, seconds: 600 };
  const narrow: RateLimit = { name: 'test-narrow', points: 1, seconds: 60 };
  await takePoints(db(), [
    { limit: wide, key: 'k1' },
    { limit: narrow, key: 'k1' },
  ]);
  const err = await refusal(
    takePoints(db(), [
      { limit: wide, key: 'k1' },
      { limit: narrow, key: 'k1' },
    ]),
  );
  t.true(err instanceof RateLimitedError);
  const wait = (err as RateLimitedError).retryAfterSeconds;
  t.true(wait >= 1 && wait <= 60, String(wait));
  // The wide limit's point of the refused try came back: one is left, then none.
  await t.notThrowsAsync(takePoints(db(), [{ limit: wide, key: 'k1' }]));
  t.true((await refusal(takePoints(db(), [{ limit: wide, key: 'k1' }]))) instanceof RateLimitedError);
  // Keys and limits are counted apart.
  await t.notThrowsAsync(takePoints(db(), [{ limit: wide, key: 'k2' }]));
});

test('giving back returns the points (a try that did not count), and concurrent tries get exactly the limit', async (t) => {
  const limit: RateLimit = { name: 'test-burst', points: 3, seconds: 600 };
  const taken = await takePoints(db(), [{ limit, key: 'b' }]);
  await taken.giveBack();
  const results = await Promise.all(Array.from({ length: 20 }, () => refusal(takePoints(db(), [{ limit, key: 'b' }]))));
  t.is(results.filter((r) => r === null).length, 3);
  t.is(results.filter((r) => r instanceof RateLimitedError).length, 17);
});
