import { spawn } from 'node:child_process';
import path from 'node:path';
import test from 'ava';
import { api, freePort, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/eventually.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { html, serve, type TestSite } from '../helpers/site.ts';
import { temporalClient } from '../helpers/workflows.ts';
import { workerProcesses } from '../helpers/worker-processes.ts';

/**
 * An api process SIGKILLed between the commit of a write and the start of its workflow: a fresh
 * process starts it (the start was recorded in the write's transaction), the draft is crawled, the
 * order's workflow runs and its capacity hold ends with it, and nothing is left half-made.
 */

const API = path.resolve(import.meta.dirname, '../helpers/api-process.ts');
const LEASE_MS = '1000';
let env: TestEnv;
let site: TestSite;
test.before(async () => {
  // No dispatcher in this env: only the fresh worker process may make the recorded starts.
  env = await startTestEnv(import.meta.url, {}, { dispatch: false });
  site = await serve({ '/': html('<title>Crash Crafts</title><meta name="description" content="Survives a crash.">') });
});
test.after.always(async () => {
  await site?.close();
  await env?.close();
});

/** Runs one request against an api process that dies right after the commit; resolves once it is dead. */
async function writeThenDie(method: string, route: string, key: string, body: unknown): Promise<NodeJS.Signals | null> {
  const port = await freePort();
  const child = spawn(process.execPath, [API], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      API_DATABASE_URL: env.databaseUrl,
      API_TEMPORAL_ADDRESS: env.temporalAddress,
      TEMPORAL_NAMESPACE: env.namespace,
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'silent',
      CRAWL_ALLOW_PRIVATE_NETWORKS: 'true',
      ORDER_CHECKOUT_TTL_SECONDS: '20',
      WORKFLOW_START_LEASE_MS: LEASE_MS,
    },
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => c.toString().includes('api ready') && resolve());
    child.once('exit', () => reject(new Error('the api process exited before it was ready')));
  });
  const answer = await api({ baseUrl: `http://127.0.0.1:${port}` }, method, route, { key, body }).then(
    (res) => res.status,
    () => 'no answer',
  );
  if (answer !== 'no answer') throw new Error(`the api process answered ${answer}`);
  return exited;
}

test('killed between the commit and the start: a fresh process starts the draft and the order workflows', async (t) => {
  t.timeout(180_000);
  const owner = await env.user();
  const db = env.services.db;
  t.is(await writeThenDie('POST', '/drafts', owner.key, { url: site.url }), 'SIGKILL');
  const listingId = await insertLiveListing(db, { name: 'Crash Crafts', ownerId: owner.userId, url: 'https://crash-crafts.example/' });
  const items = [{ product: 'featured', listing_id: listingId, options: { weeks: 1 } }];
  t.is(await writeThenDie('POST', '/orders/checkout', owner.key, { items, billing_country: 'IE' }), 'SIGKILL');

  // The writes are committed with their starts, and nothing started them.
  const draft = (await db('drafts').where({ owner_id: owner.userId }).first())!;
  const order = (await db('orders').where({ user_id: owner.userId }).first())!;
  t.truthy(draft);
  t.truthy(order);
  t.like(order, { status: 'pending' });
  const starts = await db('workflow_starts').orderBy('id').pluck('workflow_id');
  t.deepEqual(starts, [`draft:${draft.id}`, `order:${order.number}`]);
  const { client, close } = await temporalClient(env);
  t.teardown(close);
  await t.throwsAsync(client.workflow.getHandle(`order:${order.number}`).describe(), { name: 'WorkflowNotFoundError' });

  // A fresh process (a worker: its dispatcher sweeps once the dead process's lease is over).
  const workers = await workerProcesses(env, { CRAWL_ALLOW_PRIVATE_NETWORKS: 'true', WORKFLOW_START_SWEEP_MS: '200' });
  t.teardown(() => workers.close());
  await workers.start();
  await eventually('the draft to be crawled', async () => (await db('drafts').where({ id: draft.id }).first())?.status === 'ready', {
    timeoutMs: 60_000,
  });
  const described = await client.workflow.getHandle(`order:${order.number}`).describe();
  t.is(described.type, 'orderWorkflow');
  t.is(Number((await db('workflow_starts').count({ n: '*' }))[0]!.n), 0, 'every recorded start made');
  // The order's own workflow expires it when its link does, and gives its week back.
  await eventually('the order to expire', async () => (await db('orders').where({ id: order.id }).first())?.status === 'expired', {
    timeoutMs: 60_000,
  });
  t.is(Number((await db('capacity_holds').where({ order_id: order.id }).count({ n: '*' }))[0]!.n), 0, 'no capacity held');
});
