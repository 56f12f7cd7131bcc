import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';

/**
 * The row types declared for knex (src/domain/tables.ts) against the migrated database's own
 * columns (information_schema): every table is declared, every declared table exists, every
 * column is declared and every declared column exists, with a TypeScript type that matches what pg
 * returns for the column's SQL type (and `null` exactly when the column is nullable). The check is
 * the type checker's: the test writes one assertion per table and column and runs tsc on them.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const IGNORED_TABLES = new Set(['knex_migrations', 'knex_migrations_lock']);

interface Column {
  table_name: string;
  column_name: string;
  data_type: string;
  udt_name: string;
  is_nullable: 'YES' | 'NO';
}

/** The TypeScript type pg gives a value of the column (src/db/knex.ts sets int8 and date parsers). */
function tsTypeOf(c: Column): string {
  switch (c.data_type) {
    case 'smallint':
    case 'integer':
    case 'bigint':
    case 'real':
    case 'double precision':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'timestamp with time zone':
    case 'timestamp without time zone':
      return 'Date';
    case 'json':
    case 'jsonb':
      return 'unknown';
    case 'bytea':
      return 'Buffer';
    case 'ARRAY':
      return ['_int2', '_int4', '_int8'].includes(c.udt_name) ? 'number[]' : 'string[]';
    default:
      // text, varchar, citext, date (kept as 'YYYY-MM-DD'), numeric, uuid, inet, tsvector, xid8...
      return 'string';
  }
}

const lit = (s: string) => JSON.stringify(s);

/** The check file and, per line with an assertion, what it asserts. */
function checkSource(columns: Column[]): { source: string; lines: Map<number, string> } {
  const tables = [...new Set(columns.map((c) => c.table_name))].sort();
  const out = [
    `import type { Knex } from 'knex';`,
    `import type { Tables } from 'knex/types/tables.js';`,
    `import type { SiteTableRow as _Declared } from '../../src/domain/tables.ts';`,
    `type Row<T> = T extends keyof Tables ? Knex.ResolveTableType<Tables[T]> : { __undeclared: T };`,
    `type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;`,
    // A column declared unknown (a JSON value of any shape) matches any column; a JSON column
    // matches any declared type, and then only its nullability is compared.
    `type Matches<Declared, Db, Nullable extends boolean> = [unknown] extends [Declared] ? true : [unknown] extends [Db]`,
    `  ? Same<null extends Declared ? true : false, Nullable>`,
    `  : [NonNullable<Declared>] extends [Db] ? Same<null extends Declared ? true : false, Nullable> : false;`,
    `type Nothing<T> = [T] extends [never] ? true : T;`,
    `type Column<T, C, Db, Nullable extends boolean> = C extends keyof Row<T> ? Matches<Row<T>[C], Db, Nullable> : true;`,
  ];
  const lines = new Map<number, string>();
  const assert = (what: string, type: string) => {
    out.push(`export const _${out.length}: ${type} = true;`);
    lines.set(out.length, what);
  };
  const all = tables.map(lit).join(' | ');
  assert('declared tables that the database lacks', `Nothing<Exclude<keyof Tables, ${all}>>`);
  for (const table of tables) {
    const own = columns.filter((c) => c.table_name === table);
    const names = own.map((c) => lit(c.column_name)).join(' | ');
    assert(
      `table ${table}: declared in an area's tables.ts (src/domain/tables.ts lists them)`,
      `Nothing<Exclude<${lit(table)}, keyof Tables>>`,
    );
    assert(`table ${table}: declared columns the table lacks`, `Nothing<Exclude<keyof Row<${lit(table)}>, ${names}>>`);
    assert(`table ${table}: columns not declared`, `Nothing<Exclude<${names}, keyof Row<${lit(table)}>>>`);
    for (const c of own) {
      const nullable = c.is_nullable === 'YES';
      assert(
        `${table}.${c.column_name}: ${c.data_type}${nullable ? ' (nullable)' : ' not null'} is ${tsTypeOf(c)}${nullable ? ' | null' : ''}`,
        `Column<${lit(table)}, ${lit(c.column_name)}, ${tsTypeOf(c)}, ${nullable}>`,
      );
    }
  }
  return { source: out.join('\n') + '\n', lines };
}

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(async () => {
  await env?.close();
});

test('every table type matches the database: tables, columns and their types', async (t) => {
  const { rows } = await env.services.db.raw<{ rows: Column[] }>(`
    SELECT c.table_name, c.column_name, c.data_type, c.udt_name, c.is_nullable
      FROM information_schema.columns c
      JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
     WHERE c.table_schema = 'public' AND tb.table_type = 'BASE TABLE'
     ORDER BY c.table_name, c.ordinal_position`);
  const columns = rows.filter((c) => !IGNORED_TABLES.has(c.table_name));
  t.true(columns.length > 100, 'the template database is migrated');
  const { source, lines } = checkSource(columns);
  const dir = path.join(ROOT, 'tmp', `table-types-${randomBytes(4).toString('hex')}`);
  await fs.mkdir(dir, { recursive: true });
  try {
    await fs.writeFile(path.join(dir, 'check.ts'), source);
    await fs.writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../../tsconfig.json', include: ['check.ts'] }));
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const output = await promisify(execFile)(process.execPath, [tsc, '--noEmit', '-p', dir], { cwd: ROOT }).then(
      () => '',
      (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`,
    );
    const failed = new Set<string>();
    for (const m of output.matchAll(/check\.ts\((\d+),\d+\)/g)) failed.add(lines.get(Number(m[1])) ?? `line ${m[1]}: ${output}`);
    const otherErrors = output.split('\n').filter((l) => /error TS/.test(l) && !/check\.ts\(/.test(l));
    t.deepEqual(otherErrors, [], 'the check file compiles');
    t.deepEqual([...failed], [], 'what differs between src/domain/tables.ts and the database');
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
