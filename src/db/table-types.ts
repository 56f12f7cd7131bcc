import type { Knex } from 'knex';

// Helpers of the table declarations that each domain area keeps in its tables.ts.

/**
 * An insert or update value: the column's type, SQL (`db.fn.now()`, `db.raw(...)`), or for jsonb,
 * array and timestamp columns the text PostgreSQL reads them from (`JSON.stringify(...)`, an ISO time).
 */
export type Writable<T> = { [K in keyof T]: T[K] | Knex.Raw | (NonNullable<T[K]> extends object ? string : never) };

/**
 * A table whose inserts may leave out the `Defaulted` columns (generated ids, DEFAULTs, nullable
 * columns) and never write the `Generated` ones (GENERATED ALWAYS).
 */
export type Table<Row, Defaulted extends keyof Row = never, Generated extends keyof Row = never> = Knex.CompositeTableType<
  Row,
  Writable<Omit<Row, Defaulted | Generated> & Partial<Pick<Row, Exclude<Defaulted, Generated>>>>,
  Partial<Writable<Omit<Row, Generated>>>
>;

export type Timestamps = 'created_at' | 'updated_at';
