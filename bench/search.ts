/**
 * `npm run bench`: 100,000 live listings in a real PostgreSQL; search_listings, list_products and
 * a bare Koa handler (constant JSON) each loaded at 50 connections in one run. Prints requests/s,
 * p50/p99 latency and the ratio to the bare handler. Targets: search p99 < 50 ms;
 * list_products ≥ 50 % of the bare handler's throughput.
 */
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { operations } from '../src/operations/index.ts';
import { MemorySearch } from '../src/search/memory-engine.ts';
import { createServices } from '../src/services.ts';
import { benchDatabase, compare, listen, load as run, printTable, realisticPaths, runBench, type LoadResult } from './harness.ts';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 100_000);

function load(name: string, url: string, paths?: string[]): Promise<LoadResult> {
  if (!paths) return run(name, { url });
  // Each request of a `paths` run asks another query, so the search cache cannot answer it.
  process.env.BENCH_PATHS = JSON.stringify(paths);
  return run(name, { url, requests: [{ setupRequest: fileURLToPath(new URL('./rotate-path.cjs', import.meta.url)) as never }] });
}

async function main() {
  const database = await benchDatabase(LISTINGS);
  const { databaseUrl, dataDir } = database;
  try {
    const engine = process.env.SEARCH_ENGINE ?? 'memory';
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      PORT: '0',
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      DATA_DIR: dataDir,
      SEARCH_ENGINE: engine,
    });
    const services = createServices(config, { databaseUrl, temporalAddress: '127.0.0.1:1' });
    if (services.search instanceof MemorySearch) {
      const started = performance.now();
      await services.search.ready();
      console.log(`in-memory index: ${services.search.size} listings loaded in ${Math.round(performance.now() - started)} ms; ${rss()}`);
    }
    const app = await listen(createApp(services, operations).callback());
    const bare = new Koa();
    const body = { ok: true, items: [{ key: 'launch', price: 0 }] };
    bare.use((ctx) => {
      ctx.body = body;
    });
    const bareServer = await listen(bare.callback());

    const sample = await (await fetch(`${app.url}/api/v1/listings?q=analytics`)).json();
    console.log(`search "analytics": ${sample.total} matches; first: ${sample.items[0]?.name}`);

    // The bare handler and list_products in alternating rounds: their ratio is a target.
    const [bareResult, products] = await compare([
      { name: 'bare Koa (constant JSON)', options: { url: `${bareServer.url}/` } },
      { name: 'list_products', options: { url: `${app.url}/api/v1/products` } },
    ]);
    // One at a time: each query's own latency, without queueing behind the others.
    const alone: number[] = [];
    for (const path of realisticPaths().slice(0, 1_000)) {
      const started = performance.now();
      await (await fetch(`${app.url}${path}`)).arrayBuffer();
      alone.push(performance.now() - started);
    }
    alone.sort((a, b) => a - b);
    const at = (q: number) => alone[Math.floor(q * (alone.length - 1))]!.toFixed(1);
    console.log(`distinct stream one at a time (${engine}): p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`);
    const results = [
      bareResult!,
      await load('search_listings q=analytics', `${app.url}/api/v1/listings?q=analytics`),
      await load('search_listings q=rocket design', `${app.url}/api/v1/listings?q=rocket%20design`),
      await load('search_listings q=analitycs (typo)', `${app.url}/api/v1/listings?q=analitycs`),
      await load('search_listings (no q)', `${app.url}/api/v1/listings`),
      await load('search_listings distinct stream', `${app.url}/api/v1/listings`, realisticPaths()),
      products!,
    ];
    printTable(results);
    console.log(`search engine ${engine}; ${rss()}`);
    const bareRps = results[0]!.rps;
    const searchP99 = Math.max(...results.filter((r) => r.name.startsWith('search')).map((r) => r.p99));
    const streamP99 = results.find((r) => r.name.includes('distinct'))!.p99;
    const productsRatio = results.find((r) => r.name === 'list_products')!.rps / bareRps;
    console.log(`\nsearch p99 (worst query) ${searchP99} ms — target < 50 ms: ${searchP99 < 50 ? 'met' : 'MISSED'}`);
    const streamTarget = LISTINGS >= 1_000_000 ? 100 : 50;
    console.log(
      `distinct stream p99 ${streamP99} ms on ${LISTINGS} listings — target < ${streamTarget} ms: ${streamP99 < streamTarget ? 'met' : 'MISSED'}`,
    );
    console.log(`list_products ${(productsRatio * 100).toFixed(0)} % of bare — target ≥ 50 %: ${productsRatio >= 0.5 ? 'met' : 'MISSED'}`);
    await app.close();
    await bareServer.close();
    await services.close();
  } finally {
    await database.stop();
  }
}

function rss(): string {
  return `api process RSS ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB, heap ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MB`;
}

runBench(main);
