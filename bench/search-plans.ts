/**
 * `npm run bench:plans [-- q1 q2 ...]`: the SQL that search_listings sends for each query shape
 * (one word, prefix, two and three words, typos, no match, deep page), run under
 * EXPLAIN (ANALYZE, BUFFERS) on the bench database. Prints each statement's execution time;
 * BENCH_PLANS=full prints whole plans. `-- --stream N`: the first N queries of the bench's distinct
 * stream one at a time, with their time spread and the slowest. Use BENCH_DB_DIR to keep the seeded database between runs.
 */
import type pg from 'pg';
import { createDb } from '../src/db/knex.ts';
import { PostgresSearch } from '../src/search/postgres-engine.ts';
import { benchDatabase, realisticPaths, runBench } from './harness.ts';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 100_000);
const SHAPES = [
  'analytics',
  'an',
  'desi',
  'rocket design',
  'crm chat video',
  'analitycs',
  'rocket dseign',
  'zzzzqx',
  'payroll 123',
  'bench',
];

async function main() {
  const database = await benchDatabase(LISTINGS);
  const db = createDb(database.databaseUrl, 1);
  try {
    const [{ id: siteId }] = await db('sites').where({ key: 'main' }).select('id');
    if (process.argv[2] === '--stream') return await stream(db, siteId, Number(process.argv[3] ?? 500));
    const shapes = process.argv.slice(2).length > 0 ? process.argv.slice(2) : SHAPES;
    for (const q of shapes) {
      for (const page of [1, 3]) {
        const statements: Array<{ sql: string; bindings: unknown[] }> = [];
        const onQuery = (query: { sql: string; bindings?: unknown[] }) =>
          statements.push({ sql: query.sql, bindings: query.bindings ?? [] });
        db.on('query', onQuery);
        const started = performance.now();
        const result = await new PostgresSearch(db, { cacheTtlMs: 0 }).search({
          siteId,
          siteKey: 'main',
          baseUrl: '',
          q,
          page,
          perPage: 20,
        });
        const elapsed = performance.now() - started;
        db.removeListener('query', onQuery);
        const capped = result.total_capped ? ' (capped)' : '';
        console.log(`\nq=${JSON.stringify(q)} page ${page}: ${result.total}${capped} matches, ${elapsed.toFixed(1)} ms in all`);
        // The planner's own estimates (EXPLAIN statements that search sends) are not explained again.
        for (const s of statements.filter((s) => !s.sql.startsWith('EXPLAIN'))) await explain(db, s.sql, s.bindings);
      }
    }
  } finally {
    await db.destroy();
    await database.stop();
  }
}

/** One connection, one query at a time: how long each query of the distinct stream takes, and the slowest. */
async function stream(db: ReturnType<typeof createDb>, siteId: number, count: number): Promise<void> {
  const times: Array<{ ms: number; q: string; page: number }> = [];
  // Time by kind of statement (its first words), from knex's query events.
  const started = new Map<string, number>();
  const byKind = new Map<string, { ms: number; n: number }>();
  db.on('query', (q: { __knexQueryUid: string }) => started.set(q.__knexQueryUid, performance.now()));
  db.on('query-response', (_: unknown, q: { __knexQueryUid: string; sql: string }) => {
    const kind = q.sql.replace(/\s+/g, ' ').replace(/\$\d+/g, '?').slice(0, 60);
    const entry = byKind.get(kind) ?? { ms: 0, n: 0 };
    byKind.set(kind, { ms: entry.ms + performance.now() - started.get(q.__knexQueryUid)!, n: entry.n + 1 });
  });
  for (const path of realisticPaths().slice(0, count)) {
    const params = new URL(path, 'http://x').searchParams;
    const [q, page] = [params.get('q')!, Number(params.get('page'))];
    const started = performance.now();
    await new PostgresSearch(db, { cacheTtlMs: 0 }).search({ siteId, siteKey: 'main', baseUrl: '', q, page, perPage: 20 });
    times.push({ ms: performance.now() - started, q, page });
  }
  const sorted = times.map((t) => t.ms).sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(1);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  console.log(`${count} queries one at a time: mean ${mean.toFixed(1)} ms, p50 ${at(0.5)}, p90 ${at(0.9)}, p99 ${at(0.99)}, max ${at(1)}`);
  for (const t of times.sort((a, b) => b.ms - a.ms).slice(0, 10))
    console.log(`  ${t.ms.toFixed(1).padStart(7)} ms  q=${t.q} page ${t.page}`);
  console.log('time per query by statement:');
  for (const [kind, { ms, n }] of [...byKind].sort((a, b) => b[1].ms - a[1].ms)) {
    console.log(`  ${(ms / count).toFixed(2).padStart(6)} ms  ${String(n).padStart(5)}×  ${kind}`);
  }
}

async function explain(db: ReturnType<typeof createDb>, sql: string, bindings: unknown[]): Promise<void> {
  // The captured SQL holds pg's $n placeholders, so it goes to a connection of the pool as is.
  const conn = (await db.client.acquireConnection()) as pg.Client;
  const { rows } = await conn
    .query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) ${sql}`, bindings)
    .finally(() => db.client.releaseConnection(conn));
  const lines = (rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']);
  const time = lines.find((l) => l.startsWith('Execution Time'));
  const head = sql.replace(/\s+/g, ' ').slice(0, 90);
  console.log(`  ${time?.padEnd(28)} ${head}`);
  if (process.env.BENCH_PLANS === 'full') console.log(lines.map((l) => `    ${l}`).join('\n'));
}

runBench(main);
