/**
 * `npm run bench:orders`: (1) quote_order against a bare Koa handler at 50 connections, in
 * alternating rounds (target ≥ 50 % of its throughput), next to /healthz and list_products; (2) payment confirmed → every line
 * fulfilled over 200 orders on a Temporal dev server with one in-process worker (target p95 < 1 s),
 * measured from each webhook's arrival (payment_events.received_at) to the order's fulfilled_at.
 */
import Koa from 'koa';
import { createApp } from '../src/app.ts';
import { createApiKey } from '../src/auth/api-keys.ts';
import { createUser } from '../src/auth/users.ts';
import { loadConfig } from '../src/config.ts';
import { startTemporalDevServer } from '../src/embedded/temporal.ts';
import { operations } from '../src/operations/index.ts';
import { signWebhook } from '../src/payments/signature.ts';
import { createServices, type Services } from '../src/services.ts';
import { startWorkers } from '../src/temporal/worker.ts';
import { benchDatabase, compare, freePort, listen, printTable, runBench } from './harness.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 200);

async function main() {
  const database = await benchDatabase(100);
  const temporal = await startTemporalDevServer({ port: await freePort(), uiPort: null, dbFile: null, namespaces: ['bench'] });
  try {
    const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', TEMPORAL_NAMESPACE: 'bench', DATA_DIR: database.dataDir });
    const services = createServices(config, { databaseUrl: database.databaseUrl, temporalAddress: temporal.address });
    const app = await listen(createApp(services, operations).callback());
    const { key, listingId } = await buyer(services);
    await quoteThroughput(app.url, key, listingId);
    const workers = await startWorkers({ config, db: services.db, address: temporal.address, namespace: 'bench', log: services.log });
    await fulfilmentLatency(services, app.url, key, listingId);
    await workers.shutdown();
    await app.close();
    await services.close();
  } finally {
    await temporal.stop();
    await database.stop();
  }
}

async function buyer(services: Services) {
  const user = await createUser(services.db, 'bench-buyer@example.com');
  const { key } = await createApiKey(services.db, user.id, 'bench', ['account:read', 'orders:write']);
  const [{ id: listingId }] = await services.db('listings').where({ slug: 'bench-1' }).update({ owner_id: user.id }).returning('id');
  return { key, listingId: listingId as number };
}

async function quoteThroughput(url: string, key: string, listingId: number) {
  const bare = new Koa();
  bare.use((ctx) => {
    ctx.body = { ok: true };
  });
  const bareServer = await listen(bare.callback());
  const body = JSON.stringify({
    items: [
      { product: 'featured', listing_id: listingId, options: { weeks: 2 } },
      { product: 'categories', listing_id: listingId, options: { categories: ['ai'] } },
    ],
    billing_country: 'DE',
  });
  // /healthz and list_products show where the time goes: the app's request context and error
  // middleware alone, then the whole REST pipeline (auth, router, invoke, output) on a cached read.
  const [bareResult, health, products, quote] = await compare([
    { name: 'bare Koa (constant JSON)', options: { url: `${bareServer.url}/` } },
    { name: 'GET /healthz (app middleware only)', options: { url: `${url}/healthz` } },
    { name: 'list_products (cached, public)', options: { url: `${url}/api/v1/products` } },
    {
      name: 'quote_order (2 items, DE VAT)',
      options: {
        url: `${url}/api/v1/orders/quote`,
        method: 'POST',
        body,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      },
    },
  ]);
  printTable([bareResult!, health!, products!, quote!]);
  const ratio = quote!.rps / bareResult!.rps;
  console.log(`\nquote_order ${(ratio * 100).toFixed(0)} % of bare — target ≥ 50 %: ${ratio >= 0.5 ? 'met' : 'MISSED'}`);
  await bareServer.close();
}

async function fulfilmentLatency(services: Services, url: string, key: string, listingId: number) {
  const numbers: string[] = [];
  for (let i = 0; i < ORDERS; i++) {
    const res = await fetch(`${url}/api/v1/orders/checkout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        items: [
          { product: 'featured', listing_id: listingId, options: { weeks: 1 } },
          { product: 'categories', listing_id: listingId, options: { categories: ['data'] } },
        ],
        billing_country: 'US',
      }),
    });
    const order = (await res.json()) as { number: string; total_cents: number };
    numbers.push(order.number);
    // Payments arrive one after another, about 20 a second, as a busy shop's would.
    const event = JSON.stringify({
      id: `evt_bench_${i}`,
      object: 'event',
      type: 'payment_intent.succeeded',
      data: {
        object: {
          id: `pi_bench_${i}`,
          object: 'payment_intent',
          amount: order.total_cents,
          amount_received: order.total_cents,
          currency: 'usd',
          metadata: { order_number: order.number, method: 'card' },
        },
      },
    });
    const hook = await fetch(`${url}/webhooks/payments/test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signWebhook(event, services.config.orders.test.webhookSecret) },
      body: event,
    });
    if (hook.status !== 200) throw new Error(`webhook answered ${hook.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const deadline = Date.now() + 120_000;
  while ((await services.db('orders').whereIn('number', numbers).whereNull('fulfilled_at').first('id')) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
  }
  const rows = await services
    .db('orders as o')
    .join('payment_events as e', 'e.order_number', 'o.number')
    .whereIn('o.number', numbers)
    .select(services.db.raw('extract(epoch FROM o.fulfilled_at - e.received_at) * 1000 AS ms'));
  const ms = rows.map((r: { ms: string | null }) => (r.ms === null ? Infinity : Number(r.ms))).sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.ceil(q * ms.length) - 1)]!;
  console.log(
    `\npayment confirmed → every line fulfilled, ${ms.length} orders: p50 ${at(0.5).toFixed(0)} ms, p95 ${at(0.95).toFixed(0)} ms, max ${at(1).toFixed(0)} ms`,
  );
  console.log(`target p95 < 1000 ms: ${at(0.95) < 1000 ? 'met' : 'MISSED'}`);
}

runBench(main);
