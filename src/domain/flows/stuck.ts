import type { Config } from '../../config/config.ts';
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

export const FLOW_KINDS = ['draft', 'order', 'claim', 'launch', 'mail', 'start'] as const;
export type FlowKind = (typeof FLOW_KINDS)[number];

export interface StuckFlow {
  kind: FlowKind;
  /** The business id: draft or claim id, order number, listing id, outbox id, workflow id. */
  ref: string;
  /** Since when it has been stuck (its last change, its payment, its week's start...). */
  since: Date;
  /** Why it counts as stuck, with the time it has been so. */
  reason: string;
  /** The admin command (or step) that fixes it. */
  fix: string;
  /** The fix in words, for the console. */
  fixWords: string;
  /** Whether retrying it (staff_retry_flow) is safe now: it cannot do a thing twice or hide a fault. */
  retrySafe: boolean;
  /** The workflow to look at, when one owns the flow. */
  workflowId: string | null;
}

/** Which flows to look at: one site's (drafts, orders, claims, launches), and the ones of no site (mail, workflow starts). */
export interface StuckScope {
  /** Only this site's flows; every site's when absent. */
  siteId?: number;
  /** Also mail and workflow starts, which belong to no site. @default true */
  siteless?: boolean;
  /** @default the system's time */
  now?: Date;
}

const since = (at: Date) => `since ${at.toISOString()}`;
const resetHint = (workflowId: string) =>
  `after a code fix: temporal workflow reset --workflow-id ${workflowId} --type LastWorkflowTask --reason "..."`;

/** Everything stuck by the rules of STUCK_AFTER, oldest first within each kind. */
export async function findStuckFlows(db: Db, workflows: FlowStatus, scope: StuckScope = {}): Promise<StuckFlow[]> {
  const now = scope.now ?? new Date();
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const siteless = scope.siteless ?? true;
  return [
    ...(siteless ? await stuckStarts(db) : []),
    ...(await stuckDrafts(db, workflows, ago, scope.siteId)),
    ...(await stuckOrders(db, ago, scope.siteId)),
    ...(await stuckClaims(db, workflows, scope.siteId)),
    ...(await stuckLaunches(db, ago, scope.siteId)),
    ...(siteless ? await stuckMail(db, ago) : []),
  ];
}

type Ago = (ms: number) => Date;

/** Workflow starts a write recorded that no dispatcher made: Temporal unreachable, or no api or worker process running. */
async function stuckStarts(db: Db): Promise<StuckFlow[]> {
  const rows = await lateStarts(db, STUCK_AFTER.workflowStartMs);
  return rows.map((r) => ({
    kind: 'start',
    ref: r.workflow_id,
    since: r.created_at,
    reason: `not started ${since(r.created_at)} (${r.attempts} tries${r.last_error ? `, last: ${r.last_error}` : ''})`,
    fix: 'check that Temporal answers and that an api or worker process runs: its dispatcher starts it',
    fixWords:
      'Nothing to retry by hand: the start is tried again by itself. Check that Temporal answers and that an api or worker process runs.',
    retrySafe: false,
    workflowId: r.workflow_id,
  }));
}

/** A crawl whose workflow still runs is stuck in code (a reset after the fix); one whose workflow ended can start again. */
async function stuckDrafts(db: Db, workflows: FlowStatus, ago: Ago, siteId?: number): Promise<StuckFlow[]> {
  const q = db('drafts').where({ status: 'crawling' }).where('updated_at', '<', ago(STUCK_AFTER.draftCrawlingMs));
  if (siteId !== undefined) q.where({ site_id: siteId });
  const rows = await q.orderBy('id').select('id', 'url', 'updated_at');
  const stuck: StuckFlow[] = [];
  for (const d of rows) {
    const running = (await workflows.workflowStatus(draftWorkflowId(d.id)).catch(() => 'unknown')) === 'running';
    stuck.push({
      kind: 'draft',
      ref: String(d.id),
      since: d.updated_at,
      reason: `crawling ${d.url} ${since(d.updated_at)}`,
      fix: resetHint(draftWorkflowId(d.id)),
      fixWords: running
        ? 'Its workflow is still running but does not finish: a developer fixes the cause, then resets the workflow in the Temporal UI.'
        : 'Its workflow has ended while the draft still says crawling: start the crawl again.',
      retrySafe: !running,
      workflowId: draftWorkflowId(d.id),
    });
  }
  return stuck;
}

async function stuckOrders(db: Db, ago: Ago, siteId?: number): Promise<StuckFlow[]> {
  const q = db('orders').where((w) =>
    w.where('status', 'attention').orWhere((p) => p.where('status', 'paid').where('paid_at', '<', ago(STUCK_AFTER.orderPaidMs))),
  );
  if (siteId !== undefined) q.where({ site_id: siteId });
  const rows = await q.orderBy('id').select('number', 'status', 'paid_at', 'updated_at', 'attention_reason');
  return rows.map((o) => ({
    kind: 'order',
    ref: o.number,
    since: o.status === 'attention' ? o.updated_at : o.paid_at!,
    reason:
      o.status === 'attention'
        ? `attention (${o.attention_reason ?? 'no reason recorded'}) ${since(o.updated_at)}`
        : `paid but not fulfilled ${since(o.paid_at!)}`,
    fix: `npm run admin -- orders:retry --number ${o.number}`,
    fixWords: !o.paid_at
      ? 'It has no payment to fulfil: open the order and read its reason; a replay would do nothing.'
      : o.status === 'attention'
        ? 'Fix what the reason names, then replay the order: the lines not fulfilled yet are tried again.'
        : 'Replay the order: the lines not fulfilled yet are tried again.',
    retrySafe: o.paid_at !== null,
    workflowId: orderWorkflowId(o.number),
  }));
}

/** Pending claims whose workflow is closed or missing: nothing checks them any more. */
async function stuckClaims(db: Db, workflows: FlowStatus, siteId?: number): Promise<StuckFlow[]> {
  const q = db('claims as c').join('listings as l', 'l.id', 'c.listing_id').where('c.status', 'pending');
  if (siteId !== undefined) q.where('l.site_id', siteId);
  const rows = await q.orderBy('c.id').select('c.id', 'c.method', 'c.created_at');
  const stuck: StuckFlow[] = [];
  for (const c of rows) {
    const state = await workflows.workflowStatus(claimWorkflowId(c.id));
    if (state === 'running') continue;
    stuck.push({
      kind: 'claim',
      ref: String(c.id),
      since: c.created_at,
      reason: `pending (${c.method}, ${since(c.created_at)}) but its workflow is ${state}`,
      fix: `npm run admin -- claims:recheck --id ${c.id}`,
      fixWords: 'Check the claim now: its workflow starts again and checks it on its schedule from then on.',
      retrySafe: true,
      workflowId: claimWorkflowId(c.id),
    });
  }
  return stuck;
}

async function stuckLaunches(db: Db, ago: Ago, siteId?: number): Promise<StuckFlow[]> {
  const q = db('listings')
    .where({ status: 'scheduled' })
    .whereRaw(`launch_week::timestamp AT TIME ZONE 'UTC' < ?`, [ago(STUCK_AFTER.launchWeekStartedMs)]);
  if (siteId !== undefined) q.where({ site_id: siteId });
  const rows = await q.orderBy('id').select('id', 'slug', 'launch_week');
  return rows.map((l) => ({
    kind: 'launch',
    ref: String(l.id),
    since: new Date(`${l.launch_week}T00:00:00Z`),
    reason: `${l.slug} scheduled for the week of ${l.launch_week}, which has started`,
    fix: `npm run admin -- launches:recheck --listing ${l.id}`,
    fixWords: 'Wake the listing’s launch workflow: it looks at the launch again and puts the listing live.',
    retrySafe: true,
    workflowId: listingLaunchWorkflowId(l.id),
  }));
}

async function stuckMail(db: Db, ago: Ago): Promise<StuckFlow[]> {
  const rows = await db('mail_outbox')
    .whereNull('sent_at')
    .where('created_at', '<', ago(STUCK_AFTER.mailUndeliveredMs))
    .orderBy('id')
    .select('id', 'to_address', 'created_at', 'attempts', 'last_error', 'failed_at');
  return rows.map((m) => ({
    kind: 'mail',
    ref: String(m.id),
    since: m.created_at,
    reason: `to ${m.to_address} undelivered ${since(m.created_at)}, ${m.attempts} attempts${m.failed_at ? ', given up' : ''}${m.last_error ? `: ${m.last_error}` : ''}`,
    fix: m.failed_at
      ? `fix the address or SMTP, then UPDATE mail_outbox SET failed_at = NULL, next_attempt_at = now() WHERE id = ${m.id} (the worker's sweep sends it)`
      : 'check SMTP_URL and the worker (its mail sweep retries it)',
    fixWords: m.failed_at
      ? 'Sending was given up: fix the address or the mail server, then send it again.'
      : 'Check the mail server settings (SMTP_URL) and that a worker runs; sending it again now skips the wait.',
    retrySafe: true,
    workflowId: null,
  }));
}

/** The Temporal UI page of a workflow (its latest run). */
export function workflowUiLink(config: Pick<Config, 'temporal'>, workflowId: string): string {
  const { uiUrl, namespace } = config.temporal;
  return `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}
