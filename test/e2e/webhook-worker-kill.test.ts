import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { workflowBundle } from '../../src/temporal/worker.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/eventually.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

/**
 * A worker process killed (SIGKILL) while its delivery waits for the receiver's answer: another
 * worker makes the try again with the same webhook-id, and the delivery succeeds exactly once.
 */

const WORKER = path.resolve(import.meta.dirname, '../helpers/worker-process.ts');

let env: TestEnv;
let dir: string;
let current: ChildProcess | null = null;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ld-webhook-kill-'));
  await fs.writeFile(path.join(dir, 'bundle.js'), (await workflowBundle()).code);
});
test.after.always(async () => {
  if (current) await kill(current);
  await env?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

function startWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [WORKER], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      WORKER_DATABASE_URL: env.databaseUrl,
      WORKER_TEMPORAL_ADDRESS: env.temporalAddress,
      WORKER_BUNDLE_FILE: path.join(dir, 'bundle.js'),
      TEMPORAL_NAMESPACE: env.namespace,
      BASE_URL: env.baseUrl,
      DATA_DIR: dir,
      LOG_LEVEL: 'silent',
      CRAWL_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_DISPATCH_INTERVAL_MS: '100',
    },
  });
  current = child;
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => c.toString().includes('worker ready') && resolve(child));
    child.once('exit', (code) => reject(new Error(`worker exited with ${code} before it was ready`)));
  });
}

const kill = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

test('a worker killed mid-delivery: the try is made again by the next worker, same webhook-id, one success', async (t) => {
  // The lost try is noticed at the activity's 30 s timeout.
  t.timeout(180_000);
  // The first request is left without an answer: the worker dies while it waits.
  const receiver = await startReceiver((n) => (n === 1 ? 'hang' : 200));
  t.teardown(() => receiver.close());
  const owner = await env.user();
  const listingId = await insertLiveListing(env.services.db, {
    name: 'Killed Kites',
    ownerId: owner.userId,
    url: 'https://killed-kites.example/',
  });
  const created = await api(env, 'POST', '/me/webhooks', { key: owner.key, body: { url: receiver.url, events: ['update.published'] } });
  t.is(created.status, 201, JSON.stringify(created.body));
  const { id: endpointId, secret } = created.body;

  const first = await startWorker();
  t.is(
    (await api(env, 'POST', `/me/listings/${listingId}/updates`, { key: owner.key, body: { title: 'Hold on', body: 'Mid-flight.' } }))
      .status,
    201,
  );
  await eventually('the first try to reach the receiver', () => receiver.received.length === 1, { timeoutMs: 60_000 });
  await kill(first);
  await startWorker();

  const delivery = await eventually(
    'the delivery to succeed',
    async () => {
      const res = await api(env, 'GET', `/me/webhooks/${endpointId}/deliveries`, { key: owner.key });
      return res.body.items[0]?.status === 'succeeded' ? res.body.items[0] : null;
    },
    { timeoutMs: 120_000 },
  );
  t.true(receiver.received.length >= 2);
  t.is(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, 1, 'one webhook-id on every try');
  t.is(receiver.received.filter((r) => r.answered === 200).length, 1, 'accepted once');
  for (const r of receiver.received) new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
  const ok = await env.services.db('webhook_attempts').where({ delivery_id: delivery.id, ok: true }).count({ n: '*' });
  t.is(Number(ok[0]!.n), 1, 'one successful try recorded');
  t.is(Number((await env.services.db('webhook_deliveries').where({ endpoint_id: endpointId }).count({ n: '*' }))[0]!.n), 1, 'one delivery');
});
