/**
 * `npm run bench:search-writes`: searches while listings are being voted on, in one process's
 * in-memory index loaded from the bench database (BENCH_LISTINGS, default 100,000; BENCH_DB_DIR
 * keeps the seeded cluster). A writer adds votes to random listings in PostgreSQL (BENCH_WRITES
 * listings a second) while BENCH_SEARCHERS loops search the bench's distinct stream, each
 * search seeing every write committed before it. Every 4,096 written listings the index is laid
 * out again in the background. Prints the searches' latency, the longest the event loop was held
 * (what a layout done at once used to cost: over a second at 1M listings) and the layouts made.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createDb } from '../src/db/knex.ts';
import { MemorySearch } from '../src/search/memory-engine.ts';
import { benchDatabase, realisticPaths, runBench } from './harness.ts';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const WRITES = Number(process.env.BENCH_WRITES ?? 2_000);
const SEARCHERS = Number(process.env.BENCH_SEARCHERS ?? 8);

async function main() {
  const database = await benchDatabase(LISTINGS);
  const db = createDb(database.databaseUrl, SEARCHERS + 2);
  try {
    const memory = new MemorySearch(db);
    let started = performance.now();
    await memory.load();
    console.log(`index of ${memory.size} listings loaded in ${Math.round(performance.now() - started)} ms`);
    const site = (await db('sites').where({ key: 'main' }).first('id'))!.id as number;
    const ids = (await db('listings').where({ site_id: site, status: 'live' }).pluck('id')) as number[];
    const queries = realisticPaths().map((p) => new URL(p, 'http://bench').searchParams);
    const layoutsBefore = memory.layouts;
    const stopAt = performance.now() + SECONDS * 1000;
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    started = performance.now();

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

    const latencies: number[] = [];
    let next = 0;
    const searchers = Array.from({ length: SEARCHERS }, async () => {
      while (performance.now() < stopAt) {
        const params = queries[next++ % queries.length]!;
        const t = performance.now();
        await memory.search({
          siteId: site,
          siteKey: 'main',
          baseUrl: '',
          q: params.get('q') ?? '',
          page: Number(params.get('page') ?? 1),
          perPage: 20,
        });
        latencies.push(performance.now() - t);
      }
    });
    await Promise.all([writer, ...searchers]);
    delay.disable();
    await memory.laidOut();

    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1);
    console.log(
      `${SECONDS} s: ${Math.round(written / seconds)} written listings/s, ${Math.round(latencies.length / seconds)} searches/s at ${SEARCHERS} at a time`,
    );
    console.log(
      `search latency ms: p50 ${at(0.5)}, p90 ${at(0.9)}, p99 ${at(0.99)}, p99.9 ${at(0.999)}, max ${latencies.at(-1)!.toFixed(1)}`,
    );
    console.log(`event loop held at most ${(delay.max / 1e6).toFixed(1)} ms (p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms)`);
    console.log(`layouts during the run: ${memory.layouts - layoutsBefore}; RSS ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB`);
  } finally {
    await db.destroy();
    await database.stop();
  }
}

runBench(main);
