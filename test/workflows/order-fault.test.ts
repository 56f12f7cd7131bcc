import type { Knex } from 'knex';
import test from 'ava';
import { workerProcesses, killWorker } from '../helpers/worker-processes.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { checkout, postWebhook, succeededEvent } from '../helpers/orders.ts';

/** Fault test: paid orders while the worker process is killed (SIGKILL) and restarted. */

const ORDERS = 100;
const KILLS = 20;

let env: TestEnv;
let workers: Awaited<ReturnType<typeof workerProcesses>>;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  workers = await workerProcesses(env, {
    // Kills count as failed attempts; the point here is exactly-once, not giving up.
    ORDER_FULFIL_MAX_ATTEMPTS: '50',
  });
});
test.after.always(async () => {
  await workers?.close();
  await env?.close();
});

const db = () => env.services.db;

/** Posts a webhook until it is taken, as a provider retries one answered 503 (Temporal too slow to take the signal). */
async function deliver(event: ReturnType<typeof succeededEvent>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const res = await postWebhook(env, event);
    if (res.status === 200) return;
    if (res.status !== 503 || attempt === 10) throw new Error(`webhook answered ${res.status}: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 500 * attempt));
  }
}

const count = async (query: Knex.QueryBuilder) => Number(((await query.count({ n: '*' })) as unknown as { n: string }[])[0]!.n);

test(`${ORDERS} paid orders while the worker is killed and restarted ${KILLS} times: every line fulfilled exactly once`, async (t) => {
  // Each kill leaves workflow tasks that wait out their 10 s timeout; about a minute alone, more in the full suite.
  t.timeout(300_000);
  const owner = await env.user();
  const orders: { number: string; total_cents: number }[] = [];
  for (let i = 0; i < ORDERS; i++) {
    const listingId = await insertLiveListing(db(), { name: `Fault ${i}`, ownerId: owner.userId });
    const res = await checkout(env, owner.key, {
      items: [
        { product: 'featured', listing_id: listingId, options: { weeks: 2 } },
        { product: 'categories', listing_id: listingId, options: { categories: ['ai', 'data'] } },
      ],
      billing_country: 'IE',
    });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    orders.push(res.body);
  }

  let worker = await workers.start();
  const perRound = Math.ceil(ORDERS / KILLS);
  for (let round = 0; round < KILLS; round++) {
    const batch = orders.slice(round * perRound, (round + 1) * perRound);
    // Each payment is announced twice, like a provider retrying a webhook.
    await Promise.all(
      batch.flatMap((o) => [o, o]).map((o) => deliver(succeededEvent(o.number, o.total_cents, { paymentId: `pi_fault_${o.number}` }))),
    );
    await new Promise((r) => setTimeout(r, 200 + Math.random() * 800));
    await killWorker(worker);
    worker = await workers.start();
  }

  const killedAt = Date.now();
  try {
    const deadline = Date.now() + 180_000;
    while ((await count(db()('orders').whereNot({ status: 'fulfilled' }))) > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 1000));
  } finally {
    await killWorker(worker);
  }
  t.log(`all fulfilled ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the last restart`);
  const statuses = await db()('orders').groupBy('status').select('status', db().raw('count(*)::int AS n'));
  t.deepEqual(statuses, [{ status: 'fulfilled', n: ORDERS }]);
  t.is(await count(db()('order_lines').whereNull('fulfilled_at')), 0);
  // Exactly once: 2 featured weeks and 2 categories per order, and one invoice number each, gap-free.
  t.is(await count(db()('featured_placements')), ORDERS * 2);
  t.is(await count(db()('category_placements')), ORDERS * 2);
  const invoices = (await db()('orders').orderBy('invoice_number').pluck('invoice_number')) as number[];
  t.deepEqual(
    invoices,
    Array.from({ length: ORDERS }, (_, i) => i + 1),
  );
  t.is(await count(db()('mail_outbox').where('dedupe_key', 'like', 'order-receipt:%')), ORDERS);
  t.is(await count(db()('refunds')), 0);
});
