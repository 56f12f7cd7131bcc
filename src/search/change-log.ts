import type { Db } from '../db/knex.ts';

// `search_changes` (migration 018), as every engine that keeps a copy outside PostgreSQL reads it.

/** How long changes are kept: a reader that looked longer ago than STALE_AFTER_MS may have missed some and starts again. */
export const KEEP_CHANGES_MS = 60 * 60_000;
export const STALE_AFTER_MS = KEEP_CHANGES_MS / 2;
/** How often a reader deletes what is older than KEEP_CHANGES_MS. */
export const PRUNE_EVERY_MS = 5 * 60_000;

export async function pruneChanges(db: Db): Promise<void> {
  await db.raw(`DELETE FROM search_changes WHERE at < now() - interval '${KEEP_CHANGES_MS} milliseconds'`);
}
