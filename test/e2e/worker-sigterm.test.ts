import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import pg from 'pg';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { checkout, postWebhook, succeededEvent, waitForOrder } from '../helpers/orders.ts';

/**
 * SIGTERM on a real `main.ts worker` whose activity is stuck (a payment step waiting for a row
 * lock, deaf to cancellation): the process still exits within SHUTDOWN_GRACE_MS plus a few
 * seconds, and another worker finishes the step.
 */

const MAIN = path.resolve(import.meta.dirname, '../../src/main.ts');
const GRACE_MS = 2_000;
/** What the shutdown may take beyond the grace period (src/lib/shutdown.ts's margin). */
const MARGIN_MS = 5_000;

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

async function waitFor(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  for (const until = Date.now() + timeoutMs; !(await done()); await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
  }
}

test('SIGTERM stops a worker within the grace period even while an activity is stuck; another worker finishes it', async (t) => {
  t.timeout(240_000);
  const db = env.services.db;
  const owner = await env.user();
  const listingId = await insertLiveListing(db, { name: 'Stuck Steps', ownerId: owner.userId });
  const res = await checkout(env, owner.key, {
    items: [{ product: 'featured', listing_id: listingId, options: { weeks: 1 } }],
    billing_country: 'US',
  });
  t.is(res.status, 201, JSON.stringify(res.body));
  const order = res.body;

  // The order row stays locked: the payment step will wait for it, whatever cancels it.
  const locker = new pg.Client({ connectionString: env.databaseUrl });
  await locker.connect();
  t.teardown(() => locker.end().catch(() => {}));
  await locker.query('BEGIN');
  await locker.query('SELECT id FROM orders WHERE number = $1 FOR UPDATE', [order.number]);

  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ld-worker-sigterm-'));
  t.teardown(() => fs.rm(dataDir, { recursive: true, force: true }));
  const child = spawn(process.execPath, [MAIN, 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: env.databaseUrl,
      TEMPORAL_ADDRESS: env.temporalAddress,
      TEMPORAL_NAMESPACE: env.namespace,
      BASE_URL: env.baseUrl,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => void child.kill('SIGKILL'));
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitFor('the worker to start', () => output.includes('"temporal worker running"'));

  t.is((await postWebhook(env, succeededEvent(order.number, order.total_cents))).status, 200);
  await waitFor('the payment step to wait for the lock', async () => {
    const waiting = await db.raw(
      `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%from "orders"%for update%'`,
    );
    return Number(waiting.rows[0].n) > 0;
  });

  const stopping = Date.now();
  child.kill('SIGTERM');
  const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), GRACE_MS + MARGIN_MS + 10_000))]);
  const took = Date.now() - stopping;
  t.log(`worker exited ${code} ${took} ms after SIGTERM (grace ${GRACE_MS} ms)`);
  t.not(code, 'hung', output.slice(-3000));
  t.true(took < GRACE_MS + MARGIN_MS, `took ${took} ms`);
  t.regex(output, /"shutting down"/);

  // The cut-off step is retried by another worker once the row is free.
  await locker.query('ROLLBACK');
  await env.startWorkers();
  t.is((await waitForOrder(env, owner.key, order.number, ['fulfilled', 'attention'], 60_000)).status, 'fulfilled');
});
