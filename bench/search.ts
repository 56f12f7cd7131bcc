/**
 * `npm run bench`: 100,000 live listings (BENCH_LISTINGS) in a real PostgreSQL; search_listings on
 * each engine of BENCH_ENGINES (memory, postgres, opensearch: a node of its own, its index built
 * once), list_products and a bare Koa handler (constant JSON), each loaded at 50 connections in
 * one run. Prints requests/s, p50/p99 latency and the ratio to the bare handler, then each
 * engine's time to get ready, distinct-stream numbers and memory side by side. Target:
 * list_products ≥ 50 % of the bare handler's throughput.
 */
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { operations } from '../src/operations/index.ts';
import { MemorySearch } from '../src/search/memory-engine.ts';
import { createServices } from '../src/services.ts';
import { createDb } from '../src/db/knex.ts';
import { benchDatabase, compare, freePort, listen, load as run, printTable, realisticPaths, runBench, type LoadResult } from './harness.ts';
import { BENCH_ALIAS, benchOpenSearch, ENGINES, type BenchOpenSearch } from './search-engines.ts';

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
  const bare = new Koa();
  const body = { ok: true, items: [{ key: 'launch', price: 0 }] };
  bare.use((ctx) => {
    ctx.body = body;
  });
  const bareServer = await listen(bare.callback());
  let openSearch: BenchOpenSearch | undefined;
  const feedDb = createDb(databaseUrl, 2);
  try {
    const results: LoadResult[] = [];
    const summary: string[] = [];
    let products: LoadResult | undefined;
    // Before any run sets BENCH_PATHS: the node's process would inherit that environment (too big).
    if (ENGINES.includes('opensearch')) openSearch = await benchOpenSearch(feedDb, dataDir, await freePort());
    for (const engine of ENGINES) {
      const config = loadConfig({
        LOG_LEVEL: 'silent',
        PORT: '0',
        TEMPORAL_ADDRESS: '127.0.0.1:1',
        DATA_DIR: dataDir,
        SEARCH_ENGINE: engine,
        ...(openSearch ? { OPENSEARCH_URL: openSearch.url, OPENSEARCH_INDEX: BENCH_ALIAS } : {}),
      });
      const services = createServices(config, { databaseUrl, temporalAddress: '127.0.0.1:1' });
      const started = performance.now();
      await services.search.ready();
      const loadMs = Math.round(performance.now() - started);
      if (services.search instanceof MemorySearch)
        console.log(`in-memory index: ${services.search.size} listings loaded in ${loadMs} ms; ${rss()}`);
      const app = await listen(createApp(services, operations).callback());
      const sample = await (await fetch(`${app.url}/api/v1/listings?q=analytics`)).json();
      console.log(`${engine}: search "analytics": ${sample.total} matches; first: ${sample.items[0]?.name}`);
      if (!products) {
        // The bare handler and list_products in alternating rounds: their ratio is a target.
        const [bareResult, listProducts] = await compare([
          { name: 'bare Koa (constant JSON)', options: { url: `${bareServer.url}/` } },
          { name: 'list_products', options: { url: `${app.url}/api/v1/products` } },
        ]);
        results.push(bareResult!);
        products = listProducts!;
      }
      // One at a time: each query's own latency, without queueing behind the others.
      const alone: number[] = [];
      for (const path of realisticPaths().slice(0, 1_000)) {
        const t = performance.now();
        await (await fetch(`${app.url}${path}`)).arrayBuffer();
        alone.push(performance.now() - t);
      }
      alone.sort((a, b) => a - b);
      const at = (q: number) => alone[Math.floor(q * (alone.length - 1))]!.toFixed(1);
      const distinct = await load(`${engine}: distinct stream`, `${app.url}/api/v1/listings`, realisticPaths());
      results.push(
        await load(`${engine}: q=analytics`, `${app.url}/api/v1/listings?q=analytics`),
        await load(`${engine}: q=rocket design`, `${app.url}/api/v1/listings?q=rocket%20design`),
        await load(`${engine}: q=analitycs (typo)`, `${app.url}/api/v1/listings?q=analitycs`),
        await load(`${engine}: (no q)`, `${app.url}/api/v1/listings`),
        distinct,
      );
      summary.push(
        `${engine.padEnd(10)} ready in ${String(loadMs).padStart(6)} ms; distinct stream ${distinct.rps} req/s, p99 ${distinct.p99} ms; one at a time p50 ${at(0.5)} ms, p99 ${at(0.99)} ms; ${rss()}${engine === 'opensearch' && openSearch ? `, ${await openSearch.rss()}` : ''}`,
      );
      await app.close();
      await services.close();
    }
    results.push(products!);
    printTable(results);
    console.log(`\n${LISTINGS} listings, engines side by side:`);
    for (const line of summary) console.log(line);
    const bareRps = results[0]!.rps;
    const productsRatio = products!.rps / bareRps;
    console.log(`list_products ${(productsRatio * 100).toFixed(0)} % of bare — target ≥ 50 %: ${productsRatio >= 0.5 ? 'met' : 'MISSED'}`);
  } finally {
    await bareServer.close();
    await openSearch?.stop();
    await feedDb.destroy();
    await database.stop();
  }
}

function rss(): string {
  return `api process RSS ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB, heap ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MB`;
}

runBench(main);
