import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { workerProcesses, killWorker } from '../helpers/worker-processes.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/eventually.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

/**
 * A worker process killed (SIGKILL) while its delivery waits for the receiver's answer: another
 * worker makes the try again with the same webhook-id, and the delivery succeeds exactly once.
 */

let env: TestEnv;
let workers: Awaited<ReturnType<typeof workerProcesses>>;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  workers = await workerProcesses(env, { CRAWL_ALLOW_PRIVATE_NETWORKS: 'true', WORKFLOW_START_SWEEP_MS: '100' });
});
test.after.always(async () => {
  await workers?.close();
  await env?.close();
});

test('a worker killed mid-delivery: the try is made again by the next worker, same webhook-id, one success', async (t) => {
  // The lost try is noticed at the activity's heartbeat timeout (10 s).
  t.timeout(120_000);
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

  const first = await workers.start();
  t.is(
    (await api(env, 'POST', `/me/listings/${listingId}/updates`, { key: owner.key, body: { title: 'Hold on', body: 'Mid-flight.' } }))
      .status,
    201,
  );
  await eventually('the first try to reach the receiver', () => receiver.received.length === 1, { timeoutMs: 60_000 });
  await killWorker(first);
  await workers.start();

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
