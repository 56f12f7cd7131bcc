import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import test from 'ava';
import pg from 'pg';
import type { Knex } from 'knex';
import { createDb, migrate } from '../../src/db/knex.ts';
import { migrationSource } from '../../src/db/migrations/index.ts';

/**
 * Migrations run in the order of their file numbers, and a database migrated with the list in its
 * earlier order (016 before 015, 029 before 026, 033 and 034 before 032) takes the reordered list
 * without re-running or missing anything: knex compares the recorded names, not their order.
 */

const MIGRATIONS_DIR = new URL('../../src/db/migrations/', import.meta.url);

/** The list as it stood before it was put in file-number order. */
const OLD_ORDER = [
  '001-initial',
  '002-mail-outbox',
  '003-listing-edits',
  '004-updates-followers',
  '005-founders',
  '006-web-accounts',
  '007-oauth',
  '008-oauth-registrations',
  '009-quotas-digests',
  '012-launches',
  '013-votes',
  '014-claims',
  '016-search',
  '015-orders',
  '017-search-speed',
  '018-search-changes',
  '019-capacity-holds',
  '020-unit-prices',
  '021-company-identity',
  '022-test-payment-refunds',
  '023-rate-limits',
  '024-search-trigger-columns',
  '025-limits-on-rate-limiter',
  '027-vote-trust',
  '028-webhooks',
  '029-listing-stats',
  '026-media',
  '031-refund-ended',
  '033-invoice-snapshots',
  '034-mail-preferences',
  '032-payment-attempts',
];

const listed = async () => (await migrationSource.getMigrations([])) as string[];
const fileNumber = (name: string) => Number(name.slice(0, name.indexOf('-')));

async function emptyDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_PG_URL;
  if (!adminUrl) throw new Error('TEST_PG_URL is not set: run the suite with `npm test`');
  const name = `t_order_${randomBytes(5).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  return { url: adminUrl.replace(/\/postgres$/, `/${name}`), drop: () => admin(`DROP DATABASE ${name} WITH (FORCE)`) };
}

test('the list is in file-number order and names every migration file once', async (t) => {
  const names = await listed();
  const sorted = [...names].sort((a, b) => fileNumber(a) - fileNumber(b));
  t.deepEqual(names, sorted, 'migrations run in the order of their numbers');
  t.is(new Set(names.map(fileNumber)).size, names.length, 'no number is used twice');
  const files = (await fs.readdir(MIGRATIONS_DIR)).filter((f) => /^\d{3}-.+\.ts$/.test(f)).map((f) => f.slice(0, -3));
  t.deepEqual([...files].sort(), [...names].sort(), 'every migration file is listed, and only those');
});

test('a database migrated in the old order takes the new list without running or missing anything', async (t) => {
  const names = await listed();
  t.deepEqual(
    OLD_ORDER.filter((n) => !names.includes(n)),
    [],
    'every migration of the old list is still listed',
  );
  const database = await emptyDatabase();
  const db = createDb(database.url, 2);
  try {
    const oldSource: Knex.MigrationSource<string> = { ...migrationSource, getMigrations: async () => OLD_ORDER };
    const [, appliedOld] = await db.migrate.latest({ migrationSource: oldSource });
    t.deepEqual(appliedOld, OLD_ORDER);
    const recordedBefore = await db('knex_migrations').orderBy('id').pluck('name');

    const applied = await migrate(db);
    t.deepEqual(
      applied,
      names.filter((n) => !OLD_ORDER.includes(n)),
      'only migrations the old list lacked run',
    );
    const recorded = await db('knex_migrations').orderBy('id').pluck('name');
    t.deepEqual(recorded.slice(0, recordedBefore.length), recordedBefore, 'nothing recorded is touched');
    t.is(new Set(recorded).size, recorded.length, 'no migration is recorded twice');
    t.deepEqual(await migrate(db), [], 'a second run has nothing to do');
    const [completed, pending] = await db.migrate.list({ migrationSource });
    t.is(completed.length, names.length);
    t.deepEqual(pending, []);
  } finally {
    await db.destroy();
    await database.drop();
  }
});

test('a new database migrates in the new order', async (t) => {
  const database = await emptyDatabase();
  const db = createDb(database.url, 2);
  try {
    t.deepEqual(await migrate(db), await listed());
  } finally {
    await db.destroy();
    await database.drop();
  }
});
