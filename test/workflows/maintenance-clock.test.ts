import test from 'ava';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { TASK_QUEUES } from '../../src/workflows/contracts/task-queues.ts';
import type { MaintenanceResult } from '../../src/workflows/maintenance.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { temporalClient } from '../helpers/workflows.ts';

/**
 * The activities read "now" from the services' clock: the maintenance workflow's purge finds a row
 * dead once the clock has passed its expiry, without any row being rewritten into the past and
 * without waiting.
 */

const HOUR = 3600_000;
const clock = new ManualClock(new Date());
let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, {}, { clock });
  await env.startWorkers();
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const keys = async () => (await db()('idempotency_keys').where('key', 'like', 'clock-%').pluck('key')).sort();
const limits = async () => (await db()('rate_limits').where('key', 'like', 'clock:%').pluck('key')).sort();

test('rows expire by the clock the worker was given', async (t) => {
  const { userId } = await env.user();
  const at = clock.now().getTime();
  const idem = (key: string, expires: number) => ({
    credential: `user:${userId}`,
    operation: 'create_draft',
    key,
    request_hash: 'h',
    expires_at: new Date(expires),
  });
  await db()('idempotency_keys').insert([idem('clock-in-1h', at + HOUR), idem('clock-in-3h', at + 3 * HOUR)]);
  await db()('rate_limits').insert([
    { key: 'clock:in-1h', points: 1, expire: at + HOUR },
    { key: 'clock:in-3h', points: 1, expire: at + 3 * HOUR },
  ]);
  const { client, close } = await temporalClient(env);
  const run = (id: string) =>
    client.workflow.execute('maintenanceWorkflow', {
      taskQueue: TASK_QUEUES.ranking,
      workflowId: id,
      args: [{ batchSize: 10 }],
    }) as Promise<MaintenanceResult>;
  try {
    t.like(await run('clock-maintenance-1'), { idempotency_keys: 0, rate_limits: 0 });
    t.deepEqual(await keys(), ['clock-in-1h', 'clock-in-3h']);

    clock.advance(2 * HOUR);
    t.like(await run('clock-maintenance-2'), { idempotency_keys: 1, rate_limits: 1 });
    t.deepEqual(await keys(), ['clock-in-3h']);
    t.deepEqual(await limits(), ['clock:in-3h']);
  } finally {
    await close();
  }
});
