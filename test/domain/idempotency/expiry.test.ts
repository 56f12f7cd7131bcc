import test from 'ava';
import { withIdempotency } from '../../../src/domain/idempotency/store.ts';
import { startTestEnv, type TestEnv } from '../../helpers/env.ts';

/** An Idempotency-Key holds for 24 h from its first use by the given time, then is a new key. */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const HOUR = 3600_000;

test('a key replays for 24 hours after its first use, by the given time, and runs again after', async (t) => {
  const scope = { credential: 'user:1', operation: 'create_draft', key: 'clock-key-1' };
  let runs = 0;
  const work = async () => ({ status: 201, body: { run: ++runs } });
  const t0 = new Date('2031-06-02T10:00:00Z');
  const call = (ms: number, hash = 'h1') => withIdempotency(env.services.db, scope, hash, work, new Date(t0.getTime() + ms));

  t.like(await call(0), { body: { run: 1 }, replayed: false });
  t.like(await call(24 * HOUR - 1), { body: { run: 1 }, replayed: true });
  await t.throwsAsync(call(HOUR, 'h2'), { message: /different request body/ });
  const row = await env.services.db('idempotency_keys').where(scope).first('created_at', 'expires_at');
  t.is(row!.created_at.toISOString(), t0.toISOString());
  t.is(row!.expires_at.toISOString(), new Date(t0.getTime() + 24 * HOUR).toISOString());

  t.like(await call(24 * HOUR + 1, 'h2'), { body: { run: 2 }, replayed: false }, 'an expired key is taken over by the next request');
});
