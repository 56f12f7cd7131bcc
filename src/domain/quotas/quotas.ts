import type { Knex } from 'knex';
import type { Db } from '../../db/knex.ts';
import { AppError } from '../../errors/errors.ts';
import type { QuotaSettings } from '../../config/config.ts';

export type { QuotaSettings };

export const HOUR_SECONDS = 3600;

/**
 * Serializes the quota checks of one key (an account's drafts, a listing's updates) for the rest
 * of the transaction, across api processes: count-then-insert cannot race, so 40 concurrent
 * requests start exactly as many crawls as the limit allows.
 */
export async function lockQuota(trx: Knex.Transaction, key: string): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`quota:${key}`]);
}

export interface WindowUse {
  count: number;
  /** Seconds until one of the counted rows leaves the window (0 when under the limit). */
  retryAfterSeconds: number;
}

/**
 * How many rows of `rows` fall in the `windowSeconds` before `now` by `column`, and when the count
 * drops below `limit` again: when the row at position `count - limit` (oldest first) leaves the
 * window. The rows' `column` must be stamped with the same clock's time.
 */
export async function windowUse(
  db: Db,
  rows: Knex.QueryBuilder,
  column: string,
  window: { seconds: number; limit: number; now: Date },
): Promise<WindowUse> {
  const { seconds: windowSeconds, limit, now } = window;
  const inWindow = rows.where(column, '>', db.raw(`?::timestamptz - make_interval(secs => ?)`, [now, windowSeconds]));
  const [{ count }] = await inWindow.clone().count({ count: '*' });
  const used = Number(count);
  if (used < limit) return { count: used, retryAfterSeconds: 0 };
  const wait = db.raw('ceil(extract(epoch FROM ?? + make_interval(secs => ?) - ?::timestamptz))::int AS wait', [
    column,
    windowSeconds,
    now,
  ]);
  const row = (await inWindow
    .clone()
    .orderBy(column)
    .offset(used - limit)
    .first(wait)) as { wait: number } | undefined;
  return { count: used, retryAfterSeconds: Math.max(1, row?.wait ?? windowSeconds) };
}

/**
 * The 429 of a quota: `Retry-After`, and the quota's name, limit and window as problem members,
 * so MCP callers (no headers) and REST callers alike know how long to wait.
 */
export function quotaExceeded(
  quota: string,
  limit: number,
  windowSeconds: number | null,
  retryAfterSeconds: number,
  detail: string,
): AppError {
  return new AppError('quota_exceeded', detail, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
    extensions: { quota, limit, window_seconds: windowSeconds, retry_after_seconds: retryAfterSeconds },
  });
}
