import test from 'ava';
import { createVerifiedUser, RESET_REQUEST_MIN_MS } from '../../src/auth/accounts.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { mailsTo, WebClient } from '../helpers/web.ts';

// The forgot-password answer must not reveal, by its timing, whether an address has
// an account. The attack: time the POST for known and unknown addresses and compare medians.
const ROUNDS = 21;
const LANES = 3;
/** How far apart the medians may be: well under the floor, above the noise of a busy machine. */
const TOLERANCE_MS = 40;

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timedRequest(email: string): Promise<number> {
  const client = new WebClient(env.baseUrl);
  const _csrf = await client.csrfFrom('/forgot-password');
  const started = performance.now();
  const res = await client.post('/forgot-password', { _csrf, email });
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`forgot-password answered ${res.status}`);
  return ms;
}

test('forgot-password takes the same time for known and unknown addresses', async (t) => {
  // A fresh account per round: each known request does the whole work (lookup, token, mail).
  const known = await Promise.all(
    Array.from({ length: ROUNDS }, (_, i) =>
      createVerifiedUser(env.services.db, `timing-${i}@example.com`, 'a long enough password').then((u) => u.email),
    ),
  );
  await timedRequest('warm-up@example.com');
  const times = { known: [] as number[], unknown: [] as number[] };
  // Three lanes at once (each request waits out the floor, so one lane would take 13 s); within a
  // lane the two kinds alternate, so load changes on the machine hit both sides alike.
  await Promise.all(
    Array.from({ length: LANES }, async (_, lane) => {
      for (let i = lane; i < ROUNDS; i += LANES) {
        times.known.push(await timedRequest(known[i]!));
        times.unknown.push(await timedRequest(`nobody-${i}@example.com`));
      }
    }),
  );
  const [k, u] = [median(times.known), median(times.unknown)];
  t.log(`median known ${k.toFixed(1)} ms, unknown ${u.toFixed(1)} ms`);
  t.true(k >= RESET_REQUEST_MIN_MS && u >= RESET_REQUEST_MIN_MS, `${k} / ${u}`);
  t.true(Math.abs(k - u) < TOLERANCE_MS, `medians ${k.toFixed(1)} vs ${u.toFixed(1)} ms`);
  // The work itself was done: every known address got its link, no unknown one got mail.
  for (const email of known) t.is((await mailsTo(env.services.db, email)).length, 1, email);
  t.is((await mailsTo(env.services.db, 'nobody-0@example.com')).length, 0);
});
