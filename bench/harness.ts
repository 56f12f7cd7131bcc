/** Shared pieces of the benchmarks: loopback servers, an embedded PostgreSQL with seeded listings, autocannon runs. */
import http from 'node:http';
import fs from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createDb, migrate } from '../src/db/knex.ts';
import { seed } from '../src/db/seed.ts';
import { startEmbeddedPostgres } from '../src/embedded/postgres.ts';

export const CONNECTIONS = 50;
export const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);

export const WORDS = [
  'analytics',
  'invoices',
  'monitoring',
  'rockets',
  'design',
  'payroll',
  'calendar',
  'notes',
  'email',
  'crm',
  'security',
  'backup',
  'forms',
  'chat',
  'video',
  'podcast',
  'hiring',
  'travel',
  'recipes',
  'fitness',
  'budget',
  'tasks',
  'wiki',
  'docs',
  'search',
  'maps',
  'music',
  'photos',
  'shop',
  'survey',
];

/**
 * A stream of distinct realistic queries: one to three words from listing names and headlines,
 * some cut to a prefix, about one in six with a typo (two letters swapped), pages 1..3. Seeded,
 * so every run asks the same stream; 20,000 paths, so a 10 s run rarely repeats one.
 */
export function realisticPaths(count = 20_000): string[] {
  // mulberry32 in exact 32-bit arithmetic. (An LCG in float arithmetic lost bits above 2^53 and
  // fell into a cycle of ~10,000 states, so the loop below never found 20,000 distinct paths.)
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) % n;
  };
  const word = () => {
    const w = WORDS[rand(WORDS.length)]!;
    const roll = rand(12);
    if (roll < 2 && w.length > 4) return w.slice(0, 2 + rand(w.length - 3)); // a prefix
    if (roll < 4 && w.length > 4) {
      const i = 1 + rand(w.length - 3);
      return w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2); // a typo
    }
    return w;
  };
  const paths = new Set<string>();
  for (let tries = 0; paths.size < count; tries++) {
    if (tries > count * 10) throw new Error(`realisticPaths: only ${paths.size} distinct paths`);
    const words = Array.from({ length: 1 + rand(3) }, word);
    paths.add(`/api/v1/listings?q=${encodeURIComponent(words.join(' '))}&page=${1 + rand(3)}`);
  }
  return [...paths];
}

export interface LoadResult {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  total: number;
  /** CPU time of the server's (main) thread per request, µs: steadier than req/s on a shared machine. */
  cpuUs: number;
}

export async function listen(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  // Requests still in the handlers when the load stops must finish before the database goes away.
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const server = http.createServer(async (req, res) => {
    inFlight++;
    try {
      // Koa's listener resolves when its middleware is done, even if the client left long before.
      await handler(req, res);
    } finally {
      if (--inFlight === 0) drained?.();
    }
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
      server.closeAllConnections();
      await closed;
    },
  };
}

export async function freePort(): Promise<number> {
  const probe = await listen(() => {});
  const port = Number(new URL(probe.url).port);
  await probe.close();
  return port;
}

/**
 * A warm-up, then one measured autocannon run; any non-2xx answer fails the benchmark.
 * The load generator runs in a worker thread: on the server's own event loop it would charge the
 * server for parsing every response, and more for larger ones.
 */
export async function load(name: string, options: autocannon.Options): Promise<LoadResult> {
  await measure(name, options, 2);
  return measure(name, options, DURATION_S);
}

/**
 * Loads several targets in turns (warm-up, then `rounds` rounds of DURATION_S / rounds seconds
 * each (or `seconds`), one target after the other), so that a slow spell of a shared machine falls on all of
 * them alike. Throughput is over all rounds, p50 the median round's, p99 the worst round's.
 */
export async function compare(
  targets: { name: string; options: autocannon.Options }[],
  rounds = 3,
  seconds = DURATION_S,
): Promise<LoadResult[]> {
  for (const t of targets) await measure(t.name, t.options, 2);
  const runs: LoadResult[][] = targets.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, t] of targets.entries()) runs[i]!.push(await measure(t.name, t.options, seconds / rounds));
  }
  return targets.map((t, i) => {
    const all = runs[i]!;
    const total = all.reduce((sum, r) => sum + r.total, 0);
    const p50s = all.map((r) => r.p50).sort((a, b) => a - b);
    return {
      name: t.name,
      rps: total / seconds,
      p50: p50s[Math.floor(p50s.length / 2)]!,
      p99: Math.max(...all.map((r) => r.p99)),
      total,
      cpuUs: all.reduce((sum, r) => sum + r.cpuUs * r.total, 0) / total,
    };
  });
}

/** The load generator keeps no response bodies (bench/discard-bodies.cjs says why). */
const DISCARD_BODIES = fileURLToPath(new URL('./discard-bodies.cjs', import.meta.url));

async function measure(name: string, options: autocannon.Options, seconds: number): Promise<LoadResult> {
  const cpu = process.threadCpuUsage();
  const r = await autocannon({ ...options, connections: CONNECTIONS, workers: 1, duration: seconds, setupClient: DISCARD_BODIES as never });
  const used = process.threadCpuUsage(cpu);
  if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  const cpuUs = (used.user + used.system) / Math.max(1, r.requests.total);
  return { name, rps: r.requests.total / seconds, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total, cpuUs };
}

/** Prints results as a table with each row's throughput relative to the first. */
export function printTable(results: LoadResult[], baseline = results[0]!): void {
  console.log(`\n${CONNECTIONS} connections, ${DURATION_S} s per operation, node ${process.version}, ${os.cpus().length} cores`);
  // Server CPU per request: the server thread's CPU time over the requests it answered (the load
  // generator runs in a worker thread), steadier than req/s when the machine is shared.
  console.log(
    `operation                              req/s     p50 ms   p99 ms   vs ${baseline.name.split(' ')[0].padEnd(6)} server µs/req`,
  );
  for (const r of results) {
    console.log(
      `${r.name.padEnd(36)} ${r.rps.toFixed(0).padStart(7)} ${String(r.p50).padStart(9)} ${String(r.p99).padStart(8)} ${((r.rps / baseline.rps) * 100).toFixed(0).padStart(8)}% ${r.cpuUs.toFixed(0).padStart(9)}`,
    );
  }
}

export interface BenchDatabase {
  databaseUrl: string;
  dataDir: string;
  /** Stops PostgreSQL (a fast shutdown: open connections are cut), waits `downMs`, starts it again on the same data. */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * An embedded PostgreSQL with migrations, seed and `listings` live listings named from WORDS.
 * With BENCH_DB_DIR the cluster lives there and outlives the run: a later run with the same
 * number of listings skips seeding (each size has its own database), so plans can be studied
 * and runs repeated on a large table without waiting for it again. BENCH_DATABASE_URL uses a
 * PostgreSQL that is already running instead (it cannot be restarted).
 */
export async function benchDatabase(listings: number): Promise<BenchDatabase> {
  if (process.env.BENCH_DATABASE_URL)
    return prepared(process.env.BENCH_DATABASE_URL, listings, {
      dataDir: os.tmpdir(),
      restart: async () => {
        throw new Error('BENCH_DATABASE_URL: a PostgreSQL this run did not start cannot be restarted');
      },
      stop: async () => {},
    });
  const kept = process.env.BENCH_DB_DIR ? path.resolve(process.env.BENCH_DB_DIR) : null;
  const tmp = kept ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'ld-bench-')));
  await fs.mkdir(tmp, { recursive: true, mode: 0o755 });
  await fs.chmod(tmp, 0o755);
  const cluster = { dir: path.join(tmp, 'pg'), port: await freePort() };
  let pg = await startEmbeddedPostgres(cluster);
  const database = kept ? `bench_${listings}` : 'bench';
  await pg.ensureDatabase(database);
  return prepared(pg.url(database), listings, {
    dataDir: tmp,
    async restart(downMs: number) {
      await pg.stop();
      await new Promise((r) => setTimeout(r, downMs));
      pg = await startEmbeddedPostgres(cluster);
    },
    async stop() {
      await pg.stop();
      if (!kept) await fs.rm(tmp, { recursive: true, force: true });
    },
  });
}

/** Migrates the database and seeds it unless it already holds `listings` bench listings. */
async function prepared<T extends { dataDir: string }>(
  databaseUrl: string,
  listings: number,
  rest: T,
): Promise<T & { databaseUrl: string }> {
  const db = createDb(databaseUrl, 2);
  await migrate(db);
  const { rows } = await db.raw(`SELECT count(*)::int AS n FROM listings WHERE slug LIKE 'bench-%'`);
  if (rows[0].n === listings) console.log(`kept ${listings} live listings`);
  else await seedListings(db, listings);
  await db.destroy();
  return { ...rest, databaseUrl };
}

async function seedListings(db: ReturnType<typeof createDb>, listings: number): Promise<void> {
  await seed(db);
  await db.raw(`DELETE FROM listings WHERE slug LIKE 'bench-%'`);
  const started = Date.now();
  // Names and headlines from a word list so that queries match realistic shares of the rows.
  await db.raw(
    `INSERT INTO listings (site_id, slug, company_domain, name, url, status, headline, summary, votes, launch_week, live_at)
     SELECT s.id, 'bench-' || g, 'bench' || g || '.example.com',
            initcap(w[1 + g % 30]) || ' ' || initcap(w[1 + (g / 30) % 30]) || ' ' || g,
            'https://bench' || g || '.example.com/', 'live',
            'The ' || w[1 + (g / 7) % 30] || ' tool for ' || w[1 + (g / 11) % 30] || ' teams',
            'A product that helps small teams with ' || w[1 + (g / 13) % 30] || ' and ' || w[1 + (g / 17) % 30] || '.',
            (g::bigint * 7919 % 500)::int, date_trunc('week', now())::date, now()
     FROM generate_series(1, ?) g, (SELECT id FROM sites WHERE key = 'main') s, (SELECT ?::text[] AS w) words`,
    [listings, WORDS],
  );
  await db.raw('VACUUM ANALYZE');
  console.log(`seeded ${listings} live listings in ${Date.now() - started} ms`);
}

/** Runs a benchmark's main and exits with its outcome (the embedded PostgreSQL leaves handles open). */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
