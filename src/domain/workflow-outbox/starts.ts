import type { Knex } from 'knex';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/knex.ts';
import type { ClaimWorkflowInput } from '../claims/claim-flow.ts';
import { claimWorkflowId } from '../claims/claims.ts';
import { draftWorkflowId } from '../drafts/drafts.ts';
import { orderWorkflowId, type OrderWorkflowInput } from '../orders/order-flow.ts';
import type { WorkflowStarter } from '../ports.ts';
import { listingUpdateWorkflowId } from '../updates/updates.ts';
import { webhookDeliveryWorkflowId } from '../webhooks/events.ts';

/** Every workflow start a write records (one row of `workflow_starts` each), by kind. */
export type WorkflowStart =
  | { kind: 'draft'; input: { draftId: number; url: string; siteKey: string } }
  | { kind: 'order'; input: { order: OrderWorkflowInput; listingIds: number[] } }
  | { kind: 'claim'; input: ClaimWorkflowInput & { listingId: number; slug: string } }
  | { kind: 'listing-update'; input: { updateId: number; batchSize: number; listingId: number } }
  | { kind: 'webhook-delivery'; input: { deliveryId: number; round: number; listingId: number | null; replace: boolean } };

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

/** The deterministic id of the workflow a start starts (the same id on every retry: a repeat joins the run). */
export function workflowIdOf(start: WorkflowStart): string {
  switch (start.kind) {
    case 'draft':
      return draftWorkflowId(start.input.draftId);
    case 'order':
      return orderWorkflowId(start.input.order.number);
    case 'claim':
      return claimWorkflowId(start.input.claimId);
    case 'listing-update':
      return listingUpdateWorkflowId(start.input.updateId);
    case 'webhook-delivery':
      return webhookDeliveryWorkflowId(start.input.deliveryId);
  }
}

/** The channel a recorded start is announced on (pg_notify, delivered at the commit to every dispatcher listening). */
export const WORKFLOW_STARTS_CHANNEL = 'workflow_starts';

/**
 * Records a workflow start in the caller's transaction, so the start exists exactly when the write
 * does. `leaseMs` (the caller starts it itself right after the commit, see WorkflowStartQueue)
 * keeps the dispatchers off it that long; without it the dispatchers are woken at the commit.
 */
export async function recordWorkflowStart(trx: Db, start: WorkflowStart, leaseMs: number | null = null): Promise<number> {
  const [row] = await trx('workflow_starts')
    .insert({
      kind: start.kind,
      workflow_id: workflowIdOf(start),
      input: JSON.stringify(start.input),
      due_at: leaseMs === null ? trx.fn.now() : trx.raw(`now() + make_interval(secs => ?)`, [leaseMs / 1000]),
    })
    .returning('id');
  if (leaseMs === null) await trx.raw('SELECT pg_notify(?, ?)', [WORKFLOW_STARTS_CHANNEL, '']);
  return Number(row!.id);
}

/** Makes one recorded start through the port (each kind's start is idempotent: `USE_EXISTING` on its id). */
export async function makeStart(workflows: WorkflowStarter, config: Pick<Config, 'webhooks'>, row: WorkflowStartTableRow): Promise<void> {
  const start = { kind: row.kind, input: row.input } as WorkflowStart;
  switch (start.kind) {
    case 'draft':
      return workflows.startDraft(start.input.draftId, start.input);
    case 'order':
      return workflows.startOrder(start.input.order, start.input.listingIds);
    case 'claim':
      return workflows.startClaim(start.input);
    case 'listing-update':
      return workflows.startListingUpdate(start.input.updateId, start.input.batchSize, start.input.listingId);
    case 'webhook-delivery': {
      const { retry } = config.webhooks;
      const { deliveryId, round, listingId, replace } = start.input;
      return workflows.startWebhookDelivery(
        { deliveryId, round, firstRetryMs: retry.firstMs, maxRetryMs: retry.maxMs, windowMs: retry.windowMs },
        { listingId, replace },
      );
    }
  }
}
