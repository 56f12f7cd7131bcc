import type { Db } from '../../db/knex.ts';
import type { WorkflowStartTableRow } from './starts.ts';

/** Back-off of a dispatcher whose starts fail (Temporal unreachable): doubles from `firstMs` up to `maxMs`. */
export interface StartRetry {
  firstMs: number;
  maxMs: number;
}

export const retryDelayMs = (attempts: number, retry: StartRetry) => Math.min(retry.maxMs, retry.firstMs * 2 ** Math.min(attempts, 30));

/**
 * Takes up to `limit` due starts, oldest first, and leases them to the caller for `leaseMs`
 * (SKIP LOCKED: dispatchers of other processes take other rows; a dispatcher that dies leaves
 * its rows to the next sweep once the lease is over).
 */
export async function claimDueStarts(db: Db, limit: number, leaseMs: number): Promise<WorkflowStartTableRow[]> {
  const { rows } = await db.raw(
    `UPDATE workflow_starts SET due_at = now() + make_interval(secs => ?)
      WHERE id IN (SELECT id FROM workflow_starts WHERE due_at <= now() ORDER BY due_at, id LIMIT ? FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    [leaseMs / 1000, limit],
  );
  return (rows as WorkflowStartTableRow[]).sort((a, b) => Number(a.id) - Number(b.id));
}

/** The starts a process recorded with a lease (it makes them itself right after the commit). */
export async function ownStarts(db: Db, ids: number[]): Promise<WorkflowStartTableRow[]> {
  if (ids.length === 0) return [];
  return db('workflow_starts').whereIn('id', ids).orderBy('id');
}

/** The workflow runs: the start is done (a delivery notes when its workflow started). */
export async function startDone(db: Db, row: WorkflowStartTableRow): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('workflow_starts').where({ id: row.id }).delete();
    if (row.kind === 'webhook-delivery') {
      const { deliveryId, round } = row.input as { deliveryId: number; round: number };
      await trx('webhook_deliveries')
        .where({ id: deliveryId, round })
        .whereNull('workflow_started_at')
        .update({ workflow_started_at: trx.fn.now() });
    }
  });
}

/**
 * The start failed: noted, and given back at once (its lease ends), so that a dispatcher that
 * reaches Temporal makes it now; the one that failed backs off itself (workflow-dispatcher.ts).
 * The business row it belongs to stays as it is.
 */
export async function startFailed(db: Db, row: WorkflowStartTableRow, error: string): Promise<void> {
  await db('workflow_starts')
    .where({ id: row.id })
    .update({ attempts: row.attempts + 1, last_error: error.slice(0, 500), due_at: db.fn.now() });
}

/** Starts a dispatcher took but will not try now (it backs off): given back at once. */
export async function releaseStarts(db: Db, ids: number[]): Promise<void> {
  if (ids.length) await db('workflow_starts').whereIn('id', ids).update({ due_at: db.fn.now() });
}

/** Starts recorded longer ago than `olderThanMs` and not made yet, oldest first (flows:stuck). */
export async function lateStarts(db: Db, olderThanMs: number): Promise<WorkflowStartTableRow[]> {
  return db('workflow_starts')
    .where('created_at', '<', new Date(Date.now() - olderThanMs))
    .orderBy('id')
    .limit(1000);
}
