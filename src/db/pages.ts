import type { Knex } from 'knex';

/** One page of a list, as every list operation returns it. */
export interface Page<T> {
  items: T[];
  page: number;
  per_page: number;
  total: number;
}

/**
 * Page `page` (from 1) of `rows`, a query already ordered and selected, and the count of `all`,
 * the same filter without order, run in parallel.
 */
export async function pageOf<Row>(rows: Knex.QueryBuilder, all: Knex.QueryBuilder, page: number, perPage: number): Promise<Page<Row>> {
  const [items, [{ count }]] = await Promise.all([
    rows.limit(perPage).offset((page - 1) * perPage) as Promise<Row[]>,
    all.count({ count: '*' }) as unknown as Promise<{ count: number | string }[]>,
  ]);
  return { items, page, per_page: perPage, total: Number(count) };
}
