import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { migrationSource } from './migrations/index.ts';

// BIGINT counts (count(*)) come back as strings by default; ours fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
// DATE columns stay 'YYYY-MM-DD' strings instead of local-midnight Date objects.
pg.types.setTypeParser(pg.types.builtins.DATE, (v) => v);

export type Db = Knex;

/** Opens a pool on the given PostgreSQL URL. */
export function createDb(connectionString: string, poolMax = 10): Db {
  return knexFactory({
    client: 'pg',
    connection: { connectionString },
    pool: {
      min: 0,
      max: poolMax,
      // Many small concurrent API queries: parallel workers only add contention for the cores.
      afterCreate(conn: pg.Client, done: (err: Error | null, conn: pg.Client) => void) {
        conn.query('SET max_parallel_workers_per_gather = 0', (err) => done(err, conn));
      },
    },
  });
}

/** Applies every pending migration. */
export async function migrate(db: Db): Promise<string[]> {
  const [, applied] = await db.migrate.latest({ migrationSource });
  return applied as string[];
}
