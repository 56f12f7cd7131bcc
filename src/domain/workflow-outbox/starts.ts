import type { Knex } from 'knex';
import type { Db } from '../../db/knex.ts';
import type { OrderWorkflowInput } from '../orders/order-flow.ts';

/** Every workflow start a write records (one row of `workflow_starts` each), by kind. */
export type WorkflowStart =
  | { kind: 'draft'; input: { draftId: number; url: string; siteKey: string } }
  | { kind: 'order'; input: { order: OrderWorkflowInput; listingIds: number[] } }
  // The claim's workflow input (claimWorkflowInput); its type stays with claims, which record through this module.
  | { kind: 'claim'; input: { claimId: number; listingId: number; slug: string } }
  | { kind: 'listing-update'; input: { updateId: number; batchSize: number; listingId: number } }
  | { kind: 'webhook-delivery'; input: { deliveryId: number; round: number; listingId: number | null; replace: boolean } }
  | { kind: 'newsletter'; input: { siteKey: string; week: string; batchSize: number; pauseMs: number } }
  | { kind: 'notification-mail'; input: { userId: number; dueAt: number } }
  | { kind: 'account-export'; input: { userId: number; exportId: number } };

export type WorkflowStartKind = WorkflowStart['kind'];

export interface WorkflowStartTableRow {
  id: number;
  kind: WorkflowStartKind;
  workflow_id: string;
  input: WorkflowStart['input'];
  attempts: number;
  last_error: string | null;
  due_at: Date;
  created_at: Date;
}

declare module 'knex/types/tables.js' {
  interface Tables {
    workflow_starts: Knex.CompositeTableType<
      WorkflowStartTableRow,
      Pick<WorkflowStartTableRow, 'kind' | 'workflow_id'> & { input: string; due_at?: Date | Knex.Raw },
      Partial<Omit<WorkflowStartTableRow, 'input' | 'due_at'>> & { due_at?: Date | Knex.Raw }
    >;
  }
}

/** The channel a recorded start is announced on (pg_notify, delivered at the commit to every dispatcher listening). */
export const WORKFLOW_STARTS_CHANNEL = 'workflow_starts';

/**
 * Records a workflow start in the caller's transaction, so the start exists exactly when the write
 * does; `workflowId` is the deterministic id the start uses (a repeat joins the run). `leaseMs` (the caller starts it itself right after the commit, see WorkflowStartQueue)
 * keeps the dispatchers off it that long; without it the dispatchers are woken at the commit.
 */
export async function recordWorkflowStart(
  trx: Db,
  start: WorkflowStart & { workflowId: string },
  leaseMs: number | null = null,
): Promise<number> {
  const [row] = await trx('workflow_starts')
    .insert({
      kind: start.kind,
      workflow_id: start.workflowId,
      input: JSON.stringify(start.input),
      due_at: leaseMs === null ? trx.fn.now() : trx.raw(`now() + make_interval(secs => ?)`, [leaseMs / 1000]),
    })
    .returning('id');
  if (leaseMs === null) await trx.raw('SELECT pg_notify(?, ?)', [WORKFLOW_STARTS_CHANNEL, '']);
  return Number(row!.id);
}
