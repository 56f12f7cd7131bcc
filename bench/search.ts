/**
 * `npm run bench`: 100,000 live listings in a real PostgreSQL; search_listings, list_products and
 * a bare Koa handler (constant JSON) each loaded at 50 connections in one run. Prints requests/s,
 * p50/p99 latency and the ratio to the bare handler. Targets: search p99 < 50 ms;
 * list_products ≥ 50 % of the bare handler's throughput.
 */
import http from 'node:http';
import fs from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Koa from 'koa';
import { createApp } from '../src/api/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDb, migrate } from '../src/db/knex.ts';
import { seed } from '../src/db/seed.ts';
import { startEmbeddedPostgres } from '../src/embedded/postgres.ts';
import { operations } from '../src/operations/index.ts';
import { createServices } from '../src/services.ts';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 100_000);
const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);

const WORDS = [
  'analytics', 'invoices', 'monitoring', 'rockets', 'design', 'payroll', 'calendar', 'notes', 'email', 'crm',
  'security', 'backup', 'forms', 'chat', 'video', 'podcast', 'hiring', 'travel', 'recipes', 'fitness',
  'budget', 'tasks', 'wiki', 'docs', 'search', 'maps', 'music', 'photos', 'shop', 'survey',
];

async function listen(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

async function freePort(): Promise<number> {
  const probe = await listen(() => {});
  const port = Number(new URL(probe.url).port);
  await probe.close();
  return port;
}

async function load(name: string, url: string, paths?: string[]) {
  // Each request of a `paths` run asks another query, so the search cache cannot answer it.
  let i = 0;
  const requests = paths && [{ setupRequest: (req: any) => ({ ...req, path: paths[i++ % paths.length] }) }];
  // A short warm-up so that JIT and the pool are ready before the measured run.
  await autocannon({ url, connections: CONNECTIONS, duration: 2 });
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, ...(requests ? { requests } : {}) });
  if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total };
}

/** Distinct queries (two words, page 1..5): 4,500 combinations, so a 10 s run rarely repeats one. */
function uncachedPaths(): string[] {
  const paths: string[] = [];
  for (const a of WORDS) for (const b of WORDS) for (let page = 1; page <= 5; page++) {
    if (a !== b) paths.push(`/api/v1/listings?q=${a}%20${b}&page=${page}`);
  }
  for (let i = paths.length - 1; i > 0; i--) {
    const j = (i * 7919) % (i + 1);
    [paths[i], paths[j]] = [paths[j]!, paths[i]!];
  }
  return paths;
}

async function main() {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'ld-bench-'));
  await fs.chmod(tmp, 0o755);
  const pg = await startEmbeddedPostgres({ dir: path.join(tmp, 'pg'), port: await freePort() });
  try {
    await pg.ensureDatabase('bench');
    const databaseUrl = pg.url('bench');
    const db = createDb(databaseUrl, 2);
    await migrate(db);
    await seed(db);
    const started = Date.now();
    // Names and headlines from a word list so that queries match realistic shares of the rows.
    await db.raw(
      `INSERT INTO listings (site_id, slug, company_domain, name, url, status, headline, summary, votes, launch_week, live_at)
       SELECT s.id, 'bench-' || g, 'bench' || g || '.example.com',
              initcap(w[1 + g % 30]) || ' ' || initcap(w[1 + (g / 30) % 30]) || ' ' || g,
              'https://bench' || g || '.example.com/', 'live',
              'The ' || w[1 + (g / 7) % 30] || ' tool for ' || w[1 + (g / 11) % 30] || ' teams',
              'A product that helps small teams with ' || w[1 + (g / 13) % 30] || ' and ' || w[1 + (g / 17) % 30] || '.',
              (g * 7919) % 500, date_trunc('week', now())::date, now()
       FROM generate_series(1, ?) g, (SELECT id FROM sites WHERE key = 'main') s, (SELECT ?::text[] AS w) words`,
      [LISTINGS, WORDS],
    );
    await db.raw('ANALYZE listings');
    console.log(`seeded ${LISTINGS} live listings in ${Date.now() - started} ms`);
    await db.destroy();

    const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', TEMPORAL_ADDRESS: '127.0.0.1:1' });
    const services = createServices(config, { databaseUrl, temporalAddress: '127.0.0.1:1' });
    const app = await listen(createApp(services, operations).callback());
    const bare = new Koa();
    const body = { ok: true, items: [{ key: 'launch', price: 0 }] };
    bare.use((ctx) => {
      ctx.body = body;
    });
    const bareServer = await listen(bare.callback());

    const sample = await (await fetch(`${app.url}/api/v1/listings?q=analytics`)).json();
    console.log(`search "analytics": ${sample.total} matches; first: ${sample.items[0]?.name}`);

    const results = [
      await load('bare Koa (constant JSON)', `${bareServer.url}/`),
      await load('search_listings q=analytics', `${app.url}/api/v1/listings?q=analytics`),
      await load('search_listings q=rocket design', `${app.url}/api/v1/listings?q=rocket%20design`),
      await load('search_listings q=analitycs (typo)', `${app.url}/api/v1/listings?q=analitycs`),
      await load('search_listings (no q)', `${app.url}/api/v1/listings`),
      await load('search_listings uncached mix', `${app.url}/api/v1/listings`, uncachedPaths()),
      await load('list_products', `${app.url}/api/v1/products`),
    ];
    const bareRps = results[0]!.rps;
    console.log(`\n${CONNECTIONS} connections, ${DURATION_S} s each, node ${process.version}, ${os.cpus().length} cores`);
    console.log('operation                              req/s     p50 ms   p99 ms   vs bare');
    for (const r of results) {
      console.log(
        `${r.name.padEnd(36)} ${r.rps.toFixed(0).padStart(7)} ${String(r.p50).padStart(9)} ${String(r.p99).padStart(8)} ${((r.rps / bareRps) * 100).toFixed(0).padStart(8)}%`,
      );
    }
    const searchP99 = Math.max(...results.filter((r) => r.name.startsWith('search')).map((r) => r.p99));
    const productsRatio = results.find((r) => r.name === 'list_products')!.rps / bareRps;
    console.log(`\nsearch p99 (worst query) ${searchP99} ms — target < 50 ms: ${searchP99 < 50 ? 'met' : 'MISSED'}`);
    console.log(`list_products ${(productsRatio * 100).toFixed(0)} % of bare — target ≥ 50 %: ${productsRatio >= 0.5 ? 'met' : 'MISSED'}`);
    await app.close();
    await bareServer.close();
    await services.close();
  } finally {
    await pg.stop();
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
