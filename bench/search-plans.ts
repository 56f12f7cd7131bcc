/**
 * `npm run bench:plans [-- q1 q2 ...]`: the SQL that search_listings sends for each query shape
 * (one word, prefix, two and three words, typos, no match, deep page), run under
 * EXPLAIN (ANALYZE, BUFFERS) on the bench database. Prints each statement's execution time;
 * BENCH_PLANS=full prints whole plans. Use BENCH_DB_DIR to keep the seeded database between runs.
 */
import type pg from 'pg';
import { createDb } from '../src/db/knex.ts';
import { searchListings } from '../src/domain/listings/search.ts';
import { benchDatabase, runBench } from './harness.ts';

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
    const shapes = process.argv.slice(2).length > 0 ? process.argv.slice(2) : SHAPES;
    for (const q of shapes) {
      for (const page of [1, 3]) {
        const statements: Array<{ sql: string; bindings: unknown[] }> = [];
        const onQuery = (query: { sql: string; bindings?: unknown[] }) => statements.push({ sql: query.sql, bindings: query.bindings ?? [] });
        db.on('query', onQuery);
        const started = performance.now();
        const result = await searchListings(db, { siteId, q, page, perPage: 20 }, 0);
        const elapsed = performance.now() - started;
        db.removeListener('query', onQuery);
        const capped = result.total_capped ? ' (capped)' : '';
        console.log(`\nq=${JSON.stringify(q)} page ${page}: ${result.total}${capped} matches, ${elapsed.toFixed(1)} ms in all`);
        for (const s of statements) await explain(db, s.sql, s.bindings);
      }
    }
  } finally {
    await db.destroy();
    await database.stop();
  }
}

async function explain(db: ReturnType<typeof createDb>, sql: string, bindings: unknown[]): Promise<void> {
  // The captured SQL holds pg's $n placeholders, so it goes to a connection of the pool as is.
  const conn = (await db.client.acquireConnection()) as pg.Client;
  const { rows } = await conn.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) ${sql}`, bindings).finally(() => db.client.releaseConnection(conn));
  const lines = (rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']);
  const time = lines.find((l) => l.startsWith('Execution Time'));
  const head = sql.replace(/\s+/g, ' ').slice(0, 90);
  console.log(`  ${time?.padEnd(28)} ${head}`);
  if (process.env.BENCH_PLANS === 'full') console.log(lines.map((l) => `    ${l}`).join('\n'));
}

runBench(main);
