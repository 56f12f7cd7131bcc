import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/knex.ts';
import { conflict, invalidField, notFound } from '../../errors/errors.ts';
import { draftWorkflowId } from '../../workflows/contracts/workflow-ids.ts';
import { getClaim } from '../claims/claims.ts';
import { recheckClaim } from '../claims/request-check.ts';
import { siteKeyOf } from '../launches/owner-actions.ts';
import { retryOrder } from '../orders/support.ts';
import type { WorkflowStarter } from '../ports.ts';
import { STUCK_AFTER, type FlowKind } from './stuck.ts';

/**
 * A one-click retry of a stuck flow, with the step each area already has for it: an order's
 * replay (orders:retry), a claim's check (claims:recheck), a launch's wake-up (launches:recheck),
 * a new run of a crawl whose workflow ended, a mail sent again. What a retry could do twice, or
 * that a retry cannot fix (a workflow stuck in code, a start Temporal does not take), is refused
 * with `flow_not_retryable` and the reason.
 */

export interface RetryDeps {
  db: Db;
  config: Config;
  workflows: WorkflowStarter;
  now: Date;
}

/** Which flows the caller may retry: one site's, and the ones of no site (mail) for staff of every site. */
export interface RetryScope {
  siteId: number;
  siteless: boolean;
}

export interface FlowRetried {
  kind: FlowKind;
  ref: string;
  /** What was done, in words. */
  done: string;
  /** What was done, in one word: `updated` or `restarted` (an order's workflow), `checked`, `restarted`, `woken`, `queued`. */
  outcome: string;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
}

/** Records the retry (the staff audit row): in the transaction of a database effect, else after the effect. */
export type RecordRetry = (db: Db, retried: FlowRetried) => Promise<void>;

export async function retryFlow(
  deps: RetryDeps,
  kind: FlowKind,
  ref: string,
  scope: RetryScope,
  record: RecordRetry,
): Promise<FlowRetried> {
  switch (kind) {
    case 'order':
      return retryStuckOrder(deps, ref, scope, record);
    case 'claim':
      return recordAfter(record, deps.db, await recheckStuckClaim(deps, idOf(ref), scope));
    case 'draft':
      return recordAfter(record, deps.db, await restartCrawl(deps, idOf(ref), scope));
    case 'launch':
      return recordAfter(record, deps.db, await wakeLaunch(deps, idOf(ref), scope));
    case 'mail':
      return resendMail(deps, idOf(ref), scope, record);
    case 'start':
      throw notRetryable(
        `A workflow start is tried again by itself while Temporal answers; nothing to retry by hand. Check that Temporal answers and that an api or worker process runs.`,
      );
  }
}

const recordAfter = async (record: RecordRetry, db: Db, retried: FlowRetried) => {
  await record(db, retried);
  return retried;
};

const notRetryable = (detail: string) => conflict('flow_not_retryable', detail);

function idOf(ref: string): number {
  if (!/^[1-9]\d{0,9}$/.test(ref) || !Number.isSafeInteger(Number(ref)))
    throw invalidField('ref', 'must be the id of what is stuck (a whole number)');
  return Number(ref);
}

async function retryStuckOrder(deps: RetryDeps, ref: string, scope: RetryScope, record: RecordRetry): Promise<FlowRetried> {
  const number = ref.trim().toUpperCase();
  const order = await deps.db('orders').where({ number }).first('status', 'site_id', 'paid_at');
  if (!order || order.site_id !== scope.siteId) throw notFound(`Order ${ref}`);
  const how = await retryOrder(deps.db, deps.config, deps.workflows, number);
  return recordAfter(record, deps.db, {
    kind: 'order',
    ref: number,
    done:
      how === 'updated'
        ? `Order ${number}: its workflow tries the lines not fulfilled yet again.`
        : `Order ${number}: its workflow had ended; a new run fulfils the lines not fulfilled yet.`,
    outcome: how,
    before: { status: order.status },
    after: { workflow: how },
  });
}

async function recheckStuckClaim(deps: RetryDeps, id: number, scope: RetryScope): Promise<FlowRetried> {
  const claim = await getClaim(deps.db, id);
  const listing = claim && (await deps.db('listings').where({ id: claim.listing_id }).first('site_id'));
  if (!claim || listing?.site_id !== scope.siteId) throw notFound(`Claim ${id}`);
  const checked = await recheckClaim(deps.db, deps.workflows, deps.config.claims, id);
  return {
    kind: 'claim',
    ref: String(id),
    done: `Claim ${id} was checked now: it is ${checked.status}.`,
    outcome: 'checked',
    before: { status: claim.status },
    after: { status: checked.status },
  };
}

async function restartCrawl(deps: RetryDeps, id: number, scope: RetryScope): Promise<FlowRetried> {
  const draft = await deps.db('drafts').where({ id }).first('id', 'status', 'url', 'site_id');
  if (!draft || draft.site_id !== scope.siteId) throw notFound(`Draft ${id}`);
  if (draft.status !== 'crawling')
    throw notRetryable(`Draft ${id} is ${draft.status}: only a crawl that does not finish is started again.`);
  const state = await deps.workflows.workflowStatus(draftWorkflowId(id));
  if (state === 'running') {
    throw notRetryable(
      `The crawl of draft ${id} is still running in its workflow: a new start would join it. A developer fixes the cause, then resets the workflow.`,
    );
  }
  const siteKey = (await deps.db('sites').where({ id: draft.site_id }).first('key'))!.key;
  await deps.workflows.startDraft(id, { url: draft.url, siteKey });
  return {
    kind: 'draft',
    ref: String(id),
    done: `The crawl of draft ${id} started again.`,
    outcome: 'restarted',
    before: { status: draft.status, workflow: state },
    after: { workflow: 'running' },
  };
}

async function wakeLaunch(deps: RetryDeps, id: number, scope: RetryScope): Promise<FlowRetried> {
  const listing = await deps.db('listings').where({ id }).first('id', 'status', 'site_id', 'launch_week');
  if (!listing || listing.site_id !== scope.siteId) throw notFound(`Listing ${id}`);
  const started = listing.launch_week && new Date(`${listing.launch_week}T00:00:00Z`).getTime() <= deps.now.getTime();
  if (listing.status !== 'scheduled' || !started) {
    throw notRetryable(`Listing ${id} is ${listing.status}: only a scheduled launch whose week has started is woken.`);
  }
  await deps.workflows.recheckLaunch(id, await siteKeyOf(deps.db, listing));
  return {
    kind: 'launch',
    ref: String(id),
    done: `The launch workflow of listing ${id} was woken: it looks at the launch again.`,
    outcome: 'woken',
    before: { status: listing.status, launch_week: listing.launch_week },
    after: { signalled: true },
  };
}

/** Due again now, with a full round of attempts: the sweep of a worker sends it (at most once: only unsent mail is touched). */
async function resendMail(deps: RetryDeps, id: number, scope: RetryScope, record: RecordRetry): Promise<FlowRetried> {
  if (!scope.siteless) throw notFound(`Mail ${id}`);
  return deps.db.transaction(async (trx) => {
    const mail = await trx('mail_outbox').where({ id }).forUpdate().first('id', 'sent_at', 'failed_at', 'attempts', 'created_at');
    if (!mail) throw notFound(`Mail ${id}`);
    if (mail.sent_at) throw notRetryable(`Mail ${id} was sent ${mail.sent_at.toISOString()}; sending it again would repeat it.`);
    await trx('mail_outbox').where({ id }).update({ failed_at: null, attempts: 0, next_attempt_at: trx.fn.now() });
    const retried: FlowRetried = {
      kind: 'mail',
      ref: String(id),
      done: `Mail ${id} is due again: a worker sends it within a minute.`,
      outcome: 'queued',
      before: { attempts: mail.attempts, given_up: mail.failed_at !== null },
      after: { attempts: 0, given_up: false },
    };
    await record(trx, retried);
    return retried;
  });
}

/** Whether an order counts as stuck by the rules of the stuck list (the order page offers its replay then). */
export function orderIsStuck(order: { status: string; paid_at: Date | null }, now: Date): boolean {
  if (!order.paid_at) return false;
  return order.status === 'attention' || (order.status === 'paid' && now.getTime() - order.paid_at.getTime() > STUCK_AFTER.orderPaidMs);
}
