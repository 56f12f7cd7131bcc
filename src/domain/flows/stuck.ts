import type { Db } from '../../db/knex.ts';
import { claimWorkflowId, draftWorkflowId, listingLaunchWorkflowId, orderWorkflowId } from '../../workflows/contracts/workflow-ids.ts';
import type { WorkflowStarter } from '../ports.ts';
import { lateStarts } from '../workflow-outbox/queue.ts';

type FlowStatus = Pick<WorkflowStarter, 'workflowStatus'>;

/** How long each kind of flow may take before it counts as stuck (`flows:stuck` lists those for support). */
export const STUCK_AFTER = {
  draftCrawlingMs: 10 * 60_000,
  orderPaidMs: 5 * 60_000,
  /** A scheduled listing goes live at its week's start; this leaves the workflow time to do it. */
  launchWeekStartedMs: 10 * 60_000,
  mailUndeliveredMs: 3600_000,
  /** A recorded workflow start is made within a second while Temporal answers. */
  workflowStartMs: 5 * 60_000,
} as const;

export interface StuckFlow {
  kind: 'draft' | 'order' | 'claim' | 'launch' | 'mail' | 'start';
  /** The business id: draft or claim id, order number, listing id, outbox id, workflow id. */
  ref: string;
  /** Why it counts as stuck, with the time it has been so. */
  reason: string;
  /** The admin command (or step) that fixes it. */
  fix: string;
  /** The workflow to look at, when one owns the flow. */
  workflowId: string | null;
}

const ago = (ms: number) => new Date(Date.now() - ms);
const since = (at: Date) => `since ${at.toISOString()}`;
const resetHint = (workflowId: string) =>
  `after a code fix: temporal workflow reset --workflow-id ${workflowId} --type LastWorkflowTask --reason "..."`;

/** Everything stuck by the rules of STUCK_AFTER, oldest first within each kind. */
export async function findStuckFlows(db: Db, workflows: FlowStatus): Promise<StuckFlow[]> {
  return [
    ...(await stuckStarts(db)),
    ...(await stuckDrafts(db)),
    ...(await stuckOrders(db)),
    ...(await stuckClaims(db, workflows)),
    ...(await stuckLaunches(db)),
    ...(await stuckMail(db)),
  ];
}

/** Workflow starts a write recorded that no dispatcher made: Temporal unreachable, or no api or worker process running. */
async function stuckStarts(db: Db): Promise<StuckFlow[]> {
  const rows = await lateStarts(db, STUCK_AFTER.workflowStartMs);
  return rows.map((r) => ({
    kind: 'start',
    ref: r.workflow_id,
    reason: `not started ${since(r.created_at)} (${r.attempts} tries${r.last_error ? `, last: ${r.last_error}` : ''})`,
    fix: 'check that Temporal answers and that an api or worker process runs: its dispatcher starts it',
    workflowId: r.workflow_id,
  }));
}

async function stuckDrafts(db: Db): Promise<StuckFlow[]> {
  const rows = await db('drafts')
    .where({ status: 'crawling' })
    .where('updated_at', '<', ago(STUCK_AFTER.draftCrawlingMs))
    .orderBy('id')
    .select('id', 'url', 'updated_at');
  return rows.map((d) => ({
    kind: 'draft',
    ref: String(d.id),
    reason: `crawling ${d.url} ${since(d.updated_at)}`,
    fix: resetHint(draftWorkflowId(d.id)),
    workflowId: draftWorkflowId(d.id),
  }));
}

async function stuckOrders(db: Db): Promise<StuckFlow[]> {
  const rows = await db('orders')
    .where((q) =>
      q.where('status', 'attention').orWhere((p) => p.where('status', 'paid').where('paid_at', '<', ago(STUCK_AFTER.orderPaidMs))),
    )
    .orderBy('id')
    .select('number', 'status', 'paid_at', 'updated_at', 'attention_reason');
  return rows.map((o) => ({
    kind: 'order',
    ref: o.number,
    reason:
      o.status === 'attention'
        ? `attention (${o.attention_reason ?? 'no reason recorded'}) ${since(o.updated_at)}`
        : `paid but not fulfilled ${since(o.paid_at!)}`,
    fix: `npm run admin -- orders:retry --number ${o.number}`,
    workflowId: orderWorkflowId(o.number),
  }));
}

/** Pending claims whose workflow is closed or missing: nothing checks them any more. */
async function stuckClaims(db: Db, workflows: FlowStatus): Promise<StuckFlow[]> {
  const rows = await db('claims').where({ status: 'pending' }).orderBy('id').select('id', 'method', 'created_at');
  const stuck: StuckFlow[] = [];
  for (const c of rows) {
    const state = await workflows.workflowStatus(claimWorkflowId(c.id));
    if (state === 'running') continue;
    stuck.push({
      kind: 'claim',
      ref: String(c.id),
      reason: `pending (${c.method}, ${since(c.created_at)}) but its workflow is ${state}`,
      fix: `npm run admin -- claims:recheck --id ${c.id}`,
      workflowId: claimWorkflowId(c.id),
    });
  }
  return stuck;
}

async function stuckLaunches(db: Db): Promise<StuckFlow[]> {
  const rows = await db('listings')
    .where({ status: 'scheduled' })
    .whereRaw(`launch_week::timestamp AT TIME ZONE 'UTC' < ?`, [ago(STUCK_AFTER.launchWeekStartedMs)])
    .orderBy('id')
    .select('id', 'slug', 'launch_week');
  return rows.map((l) => ({
    kind: 'launch',
    ref: String(l.id),
    reason: `${l.slug} scheduled for the week of ${l.launch_week}, which has started`,
    fix: `npm run admin -- launches:recheck --listing ${l.id}`,
    workflowId: listingLaunchWorkflowId(l.id),
  }));
}

async function stuckMail(db: Db): Promise<StuckFlow[]> {
  const rows = await db('mail_outbox')
    .whereNull('sent_at')
    .where('created_at', '<', ago(STUCK_AFTER.mailUndeliveredMs))
    .orderBy('id')
    .select('id', 'to_address', 'created_at', 'attempts', 'last_error', 'failed_at');
  return rows.map((m) => ({
    kind: 'mail',
    ref: String(m.id),
    reason: `to ${m.to_address} undelivered ${since(m.created_at)}, ${m.attempts} attempts${m.failed_at ? ', given up' : ''}${m.last_error ? `: ${m.last_error}` : ''}`,
    fix: m.failed_at
      ? `fix the address or SMTP, then UPDATE mail_outbox SET failed_at = NULL, next_attempt_at = now() WHERE id = ${m.id} (the worker's sweep sends it)`
      : 'check SMTP_URL and the worker (its mail sweep retries it)',
    workflowId: null,
  }));
}
