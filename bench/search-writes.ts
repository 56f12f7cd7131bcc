/**
 * `npm run bench:search-writes`: searches while listings are being voted on, for each engine of
 * BENCH_ENGINES (memory, postgres, opensearch) in one run on the bench database (BENCH_LISTINGS,
 * default 100,000; BENCH_DB_DIR keeps the seeded cluster and the OpenSearch node's data).
 * A writer adds votes to random listings in PostgreSQL (BENCH_WRITES a second, default 1,500)
 * while BENCH_SEARCHERS loops search the bench's distinct stream, and a prober renames a listing
 * to a new word four times a second and times until a search finds it (freshness). The memory
 * engine answers with every write committed before the search; the postgres engine reads
 * PostgreSQL (no result cache here); OpenSearch answers from what its feed wrote, the feed running
 * rounds back to back in this process as a worker does while changes keep coming.
 * Prints per engine: searches/s, latency p50/p99, freshness p50/p99, the event loop's longest
 * hold and memory.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createDb, type Db } from '../src/db/knex.ts';
import type { SearchEngine } from '../src/domain/listings/search-port.ts';
import { MemorySearch } from '../src/search/memory-engine.ts';
import { openSearchClient } from '../src/search/opensearch-index.ts';
import { OpenSearchSearch } from '../src/search/opensearch-engine.ts';
import { PostgresSearch } from '../src/search/postgres-engine.ts';
import { benchDatabase, freePort, realisticPaths, runBench } from './harness.ts';
import { BENCH_ALIAS, benchOpenSearch, ENGINES, type BenchOpenSearch } from './search-engines.ts';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const WRITES = Number(process.env.BENCH_WRITES ?? 1_500);
const SEARCHERS = Number(process.env.BENCH_SEARCHERS ?? 8);
const PROBES_PER_SECOND = 4;

interface Row {
  engine: string;
  writes: number;
  searches: number;
  p50: number;
  p99: number;
  fresh50: number;
  fresh99: number;
  probes: number;
  loopMax: number;
  memory: string;
}

async function main() {
  const database = await benchDatabase(LISTINGS);
  const db = createDb(database.databaseUrl, SEARCHERS + 4);
  let openSearch: BenchOpenSearch | undefined;
  const rows: Row[] = [];
  try {
    const site = (await db('sites').where({ key: 'main' }).first('id'))!.id as number;
    const ids = (await db('listings').where({ site_id: site, status: 'live' }).pluck('id')) as number[];
    for (const name of ENGINES) {
      let engine: SearchEngine;
      let feeding: (() => Promise<void>) | null = null;
      let memory = () => Promise.resolve(`api RSS ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB`);
      const started = performance.now();
      if (name === 'memory') {
        const search = new MemorySearch(db);
        await search.load();
        console.log(`memory: index of ${search.size} listings loaded in ${Math.round(performance.now() - started)} ms`);
        engine = search;
      } else if (name === 'postgres') {
        engine = new PostgresSearch(db, { cacheTtlMs: 0 });
      } else {
        openSearch ??= await benchOpenSearch(db, database.dataDir, await freePort());
        engine = new OpenSearchSearch(db, openSearchClient({ url: openSearch.url }), { alias: BENCH_ALIAS, cacheTtlMs: 0 });
        const feed = openSearch.feed;
        feeding = async () => {
          await feed.round();
        };
        const node = openSearch;
        memory = async () => `api RSS ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB, ${await node.rss()}`;
      }
      rows.push(await measure(name, db, engine, site, ids, feeding, memory));
      if (engine instanceof MemorySearch) await engine.laidOut();
    }
    console.log(
      `\n${LISTINGS} listings, ${SECONDS} s per engine, ${WRITES} votes/s written, ${SEARCHERS} searchers, ${PROBES_PER_SECOND} freshness probes/s`,
    );
    console.log('engine      votes/s  searches/s  p50 ms  p99 ms  fresh p50 ms  fresh p99 ms  loop max ms  memory');
    for (const r of rows) {
      console.log(
        `${r.engine.padEnd(10)} ${String(r.writes).padStart(8)} ${String(r.searches).padStart(11)} ${r.p50.toFixed(1).padStart(7)} ${r.p99.toFixed(1).padStart(7)} ${r.fresh50.toFixed(0).padStart(13)} ${r.fresh99.toFixed(0).padStart(13)} ${r.loopMax.toFixed(0).padStart(12)}  ${r.memory}`,
      );
    }
  } finally {
    await openSearch?.stop();
    await db.destroy();
    await database.stop();
  }
}

async function measure(
  name: string,
  db: Db,
  engine: SearchEngine,
  site: number,
  ids: number[],
  feeding: (() => Promise<void>) | null,
  memory: () => Promise<string>,
): Promise<Row> {
  const queries = realisticPaths().map((p) => new URL(p, 'http://bench').searchParams);
  const search = (q: string, page = 1) => engine.search({ siteId: site, siteKey: 'main', baseUrl: '', q, page, perPage: 20 });
  const stopAt = performance.now() + SECONDS * 1000;
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const started = performance.now();

  let written = 0;
  const writer = (async () => {
    // Batches of 20 listings, paced to BENCH_WRITES a second.
    while (performance.now() < stopAt) {
      const batch = Array.from({ length: 20 }, () => ids[Math.floor(Math.random() * ids.length)]!);
      await db('listings').whereIn('id', batch).increment('votes', 1);
      written += batch.length;
      const due = started + (written / WRITES) * 1000;
      if (due > performance.now()) await new Promise((r) => setTimeout(r, due - performance.now()));
    }
  })();
  const feeder = (async () => {
    while (feeding && performance.now() < stopAt + 2_000) await feeding();
  })();

  const latencies: number[] = [];
  let next = 0;
  const searchers = Array.from({ length: SEARCHERS }, async () => {
    while (performance.now() < stopAt) {
      const params = queries[next++ % queries.length]!;
      const t = performance.now();
      await search(params.get('q') ?? '', Number(params.get('page') ?? 1));
      latencies.push(performance.now() - t);
    }
  });

  // A word no listing has, given to one listing: how long until a search finds it.
  const freshness: number[] = [];
  const prober = (async () => {
    for (let n = 0; performance.now() < stopAt; n++) {
      const word = `zqfresh${name}${n}x${Math.floor(Math.random() * 1e6)}`;
      const id = ids[Math.floor(Math.random() * ids.length)]!;
      const written = performance.now();
      await db('listings')
        .where({ id })
        .update({ name: `Fresh ${word}` });
      while (!(await search(word)).items.some((i) => i.id === id)) {
        if (performance.now() - written > 30_000) throw new Error(`${name}: a renamed listing was not found in 30 s`);
        await new Promise((r) => setTimeout(r, 5));
      }
      freshness.push(performance.now() - written);
      await new Promise((r) => setTimeout(r, 1000 / PROBES_PER_SECOND));
    }
  })();
  await Promise.all([writer, prober, ...searchers]);
  const seconds = (performance.now() - started) / 1000;
  await feeder;
  delay.disable();
  const at = (values: number[], q: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  };
  return {
    engine: name,
    writes: Math.round(written / seconds),
    searches: Math.round(latencies.length / seconds),
    p50: at(latencies, 0.5),
    p99: at(latencies, 0.99),
    fresh50: at(freshness, 0.5),
    fresh99: at(freshness, 0.99),
    probes: freshness.length,
    loopMax: delay.max / 1e6,
    memory: await memory(),
  };
}

runBench(main);
