import type { OrderStatus } from '../../src/domain/orders/order-views.ts';
import test from 'ava';
import { startMetricsServer } from '../../src/metrics/server.ts';
import { installTemporalRuntime } from '../../src/temporal/runtime.ts';
import { api, freePort, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { eventually } from '../helpers/eventually.ts';

/** /metrics on its own port: request, MCP and database series after real traffic; the SDK's worker metrics. */

let env: TestEnv;
let metricsUrl: string;
let temporalMetricsUrl: string;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  const port = await freePort();
  const server = await startMetricsServer(env.services.metrics.registry, port, '127.0.0.1');
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
  // The SDK's runtime must be set up before this process's first worker connection.
  const temporalPort = await freePort();
  installTemporalRuntime({ host: '127.0.0.1', metrics: { port: null, temporalPort } }, env.services.log);
  temporalMetricsUrl = `http://127.0.0.1:${temporalPort}/metrics`;
  await env.startWorkers();
  const close = env.close;
  env.close = async () => {
    await new Promise((resolve) => server.close(resolve));
    await close();
  };
});
test.after.always(async () => {
  await env?.close();
});

const db = () => env.services.db;

async function scrape(url = metricsUrl): Promise<string> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`scrape answered ${res.status}`);
  return res.text();
}

/** The value of one series (exact name and labels as Prometheus prints them), or undefined. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test.serial('request durations by operation and status, MCP calls by tool', async (t) => {
  for (let i = 0; i < 3; i++) t.is((await api(env, 'GET', '/listings?q=rockets')).status, 200);
  t.is((await api(env, 'GET', '/listings?page=0')).status, 400);
  t.is((await api(env, 'GET', '/no-such-route')).status, 404);
  const { key } = await env.user();
  t.is((await api(env, 'GET', '/me/listings', { key })).status, 200);
  const calls = mcpParity(env);
  t.teardown(() => calls.close());
  t.false((await calls.viaMcp(undefined, 'search_listings', { q: 'rockets' })).error);
  t.false((await calls.viaMcp(undefined, 'search_listings', { q: 'comets' })).error);

  const text = await scrape();
  t.is(value(text, 'http_request_duration_seconds_count{operation="search_listings",transport="rest",status="200"}'), 3);
  t.is(value(text, 'http_request_duration_seconds_count{operation="search_listings",transport="rest",status="400"}'), 1);
  t.is(value(text, 'http_request_duration_seconds_count{operation="rest",transport="rest",status="404"}'), 1);
  t.is(value(text, 'http_request_duration_seconds_count{operation="list_my_listings",transport="rest",status="200"}'), 1);
  t.is(value(text, 'http_request_duration_seconds_bucket{le="10",operation="search_listings",transport="rest",status="200"}'), 3);
  t.is(value(text, 'mcp_tool_calls_total{tool="search_listings"}'), 2);
  // Both calls were answered by the endpoint itself (src/mcp/direct-call.ts), not the SDK.
  t.is(value(text, 'mcp_answers_total{path="direct"}'), 2);
  // MCP requests are labelled by tool for a single tools/call (here through the SDK client), by method otherwise.
  t.is(value(text, 'http_request_duration_seconds_count{operation="search_listings",transport="mcp",status="200"}'), 2);
  t.regex(text, /^process_cpu_seconds_total \d/m);
});

test.serial('outbox backlog and age, open orders and claims by status are read from the database at each scrape', async (t) => {
  const before = await scrape();
  t.is(value(before, 'mail_outbox_backlog'), 0);
  t.is(value(before, 'mail_outbox_oldest_age_seconds'), 0);
  t.is(value(before, 'orders_open{status="paid"}'), 0);
  t.is(value(before, 'claims{status="pending"}'), 0);

  // No SMTP here: queued mail stays. One row two minutes old, one sent, one given up.
  await db()('mail_outbox').insert([
    { to_address: 'a@example.com', subject: 's', body_text: 'b', created_at: new Date(Date.now() - 120_000) },
    { to_address: 'b@example.com', subject: 's', body_text: 'b', sent_at: new Date() },
    { to_address: 'c@example.com', subject: 's', body_text: 'b', failed_at: new Date() },
  ]);
  const { userId } = await env.user();
  const site = await db()('sites').where({ key: 'main' }).first('id');
  const order = (number: string, status: OrderStatus) => ({
    site_id: site!.id,
    user_id: userId,
    number,
    checkout_token: number,
    status,
    quote: '{}',
    billing: '{}',
    total_cents: 100,
    expires_at: new Date(),
  });
  await db()('orders').insert([
    order('LD-M-1', 'paid'),
    order('LD-M-2', 'attention'),
    order('LD-M-3', 'attention'),
    order('LD-M-4', 'fulfilled'),
  ]);
  const listingId = await insertLiveListing(db(), { name: 'Metrics Co' });
  await db()('claims').insert({
    listing_id: listingId,
    user_id: userId,
    method: 'dns',
    token: 't',
    status: 'pending',
    expires_at: new Date(Date.now() + 86_400_000),
  });

  const after = await scrape();
  t.is(value(after, 'mail_outbox_backlog'), 1);
  const age = value(after, 'mail_outbox_oldest_age_seconds')!;
  t.true(age >= 119 && age < 600, `age ${age}`);
  t.is(value(after, 'orders_open{status="paid"}'), 1);
  t.is(value(after, 'orders_open{status="attention"}'), 2);
  t.is(value(after, 'orders_open{status="pending"}'), 0);
  t.is(value(after, 'claims{status="pending"}'), 1);
  t.is(value(after, 'claims{status="verified"}'), 0);
});

test.serial('only GET /metrics is served there, and the public port has no /metrics', async (t) => {
  t.is((await fetch(metricsUrl.replace('/metrics', '/'))).status, 404);
  t.is((await fetch(metricsUrl, { method: 'POST' })).status, 404);
  const pub = await fetch(`${env.baseUrl}/metrics`);
  t.is(pub.status, 404);
  t.notRegex(await pub.text(), /http_request_duration_seconds/);
});

test.serial('the Temporal SDK exports its worker metrics on TEMPORAL_METRICS_PORT', async (t) => {
  // The SDK reports poller and slot metrics once the workers poll.
  const text = await eventually(
    'temporal_ metrics',
    async () => {
      const scraped = await scrape(temporalMetricsUrl);
      return /^temporal_/m.test(scraped) && scraped;
    },
    { timeoutMs: 10_000, intervalMs: 200 },
  );
  t.regex(text, /^temporal_\w+\{[^}]*task_queue="drafts"/m);
  t.regex(text, /^temporal_\w+\{[^}]*namespace="/m);
});
