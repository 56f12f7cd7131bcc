import { z } from 'zod';
import { retryFlow } from '../domain/flows/retry.ts';
import { FLOW_KINDS, findStuckFlows, workflowUiLink } from '../domain/flows/stuck.ts';
import type { StaffActor } from '../domain/staff/access.ts';
import { rolesOf } from '../domain/staff/roles.ts';
import { defineOperation, type OperationContext } from './operation.ts';
import { asStaff, audit, STAFF_ERROR_CODES } from './staff.ts';

const STAFF = ['admin', 'support'] as const;

/** What the stuck list and a retry name: for forms and links of the console. */
export { FLOW_KINDS };
export type FlowKind = (typeof FLOW_KINDS)[number];

/**
 * Mail and workflow starts belong to no site (a mail's address may be any site's buyer): only
 * staff whose role covers every site, and the command line, see and retry them.
 */
async function seesEverySite(ctx: OperationContext, actor: StaffActor): Promise<boolean> {
  if (actor.userId === null) return true;
  const grants = await rolesOf(ctx.db, actor.userId);
  return grants.some((g) => g.siteId === null && (STAFF as readonly string[]).includes(g.role));
}

const StuckItem = z.object({
  kind: z.enum(FLOW_KINDS),
  ref: z.string().describe('Draft, claim, listing or mail id, order number, or workflow id (a start)'),
  since: z.string().describe('Since when it has been stuck'),
  cause: z.string().describe('Why it counts as stuck, in words'),
  fix: z.string().describe('What fixes it, in words'),
  command: z.string().describe('The admin command (or step) that fixes it'),
  retry_safe: z.boolean().describe('Whether staff_retry_flow may retry it now'),
  workflow_id: z.string().nullable(),
  temporal_url: z.string().nullable().describe('Its workflow in the Temporal UI'),
});

export const staffListStuckFlowsOp = defineOperation({
  name: 'staff_list_stuck_flows',
  summary: 'Site team: background work that is stuck',
  description:
    'Drafts whose crawl does not finish, paid orders not fulfilled, pending claims nothing checks, launches whose week started, ' +
    'and (for staff of every site) mail not delivered and workflow starts not made: each with why, the fix, whether a ' +
    'one-click retry (staff_retry_flow) is safe, and its workflow in the Temporal UI. For support and admins; audited.',
  method: 'GET',
  path: '/staff/flows',
  scope: 'staff:flows',
  idempotent: false,
  readOnly: true,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({}),
  output: z.object({ items: z.array(StuckItem) }),
  async handler(input, ctx) {
    const actor = await asStaff(ctx, STAFF);
    const siteless = await seesEverySite(ctx, actor);
    const stuck = await findStuckFlows(ctx.db, ctx.workflows, { siteId: ctx.site.id, siteless, now: ctx.clock.now() });
    await audit(ctx, actor, { operation: 'staff_list_stuck_flows', input, after: { found: stuck.length } });
    const items = stuck.map((f) => ({
      kind: f.kind,
      ref: f.ref,
      since: f.since.toISOString(),
      cause: f.reason,
      fix: f.fixWords,
      command: f.fix,
      retry_safe: f.retrySafe,
      workflow_id: f.workflowId,
      temporal_url: f.workflowId ? workflowUiLink(ctx.config, f.workflowId) : null,
    }));
    return { items };
  },
});

const Retried = z.object({
  kind: z.enum(FLOW_KINDS),
  ref: z.string(),
  done: z.string().describe('What was done, in words'),
  outcome: z.string().describe('In one word: updated or restarted (an order’s workflow), checked, restarted, woken, queued'),
});

async function retryAsStaff(
  ctx: OperationContext,
  operation: string,
  kind: (typeof FLOW_KINDS)[number],
  ref: string,
  input: Record<string, unknown>,
) {
  const actor = await asStaff(ctx, STAFF);
  const scope = { siteId: ctx.site.id, siteless: await seesEverySite(ctx, actor) };
  const deps = { db: ctx.db, config: ctx.config, workflows: ctx.workflows, now: ctx.clock.now() };
  const retried = await retryFlow(deps, kind, ref, scope, (db, r) =>
    audit(ctx, actor, { operation, input, target: { kind: r.kind, id: r.ref }, before: r.before, after: r.after }, db),
  );
  return { kind: retried.kind, ref: retried.ref, done: retried.done, outcome: retried.outcome };
}

export const staffRetryFlowOp = defineOperation({
  name: 'staff_retry_flow',
  summary: 'Site team: retry a stuck flow',
  description:
    'Retries what staff_list_stuck_flows lists as safe to retry: an order is replayed (its lines not fulfilled are tried again), ' +
    'a claim checked now, a launch’s workflow woken, a crawl whose workflow ended started again, a mail sent again. ' +
    'What a retry cannot fix safely is refused with 409 `flow_not_retryable` and the reason. For support and admins; audited.',
  method: 'POST',
  path: '/staff/flows/{kind}/{ref}/retry',
  scope: 'staff:flows',
  idempotent: false,
  readOnly: false,
  errorCodes: [...STAFF_ERROR_CODES, 'flow_not_retryable', 'order_not_stuck', 'claim_not_pending', 'workflow_unavailable'],
  tags: ['staff'],
  input: z.object({
    kind: z.enum(FLOW_KINDS).describe('What is stuck'),
    ref: z.string().trim().min(1).max(200).describe('Its id as the stuck list gives it'),
  }),
  output: Retried,
  handler: (input, ctx) => retryAsStaff(ctx, 'staff_retry_flow', input.kind, input.ref, input),
});

export const staffReplayOrderOp = defineOperation({
  name: 'staff_replay_order',
  summary: 'Site team: replay a stuck order',
  description:
    'A paid order that is not fulfilled (paid a while ago, or needing attention after its cause was fixed): its workflow ' +
    'tries the lines not fulfilled yet again, or a new run does when the workflow had ended. For support and admins; audited.',
  method: 'POST',
  path: '/staff/orders/{number}/replay',
  scope: 'staff:orders',
  idempotent: false,
  readOnly: false,
  errorCodes: [...STAFF_ERROR_CODES, 'order_not_stuck', 'workflow_unavailable'],
  tags: ['staff'],
  input: z.object({ number: z.string().trim().min(1).max(40).describe('The order number') }),
  output: Retried,
  handler: (input, ctx) => retryAsStaff(ctx, 'staff_replay_order', 'order', input.number, input),
});

export const staffFlowOperations = [staffListStuckFlowsOp, staffRetryFlowOp, staffReplayOrderOp] as const;
