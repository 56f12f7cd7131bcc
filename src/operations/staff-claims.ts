import { z } from 'zod';
import { CLAIM_STATUSES, type ClaimRow } from '../domain/claims/claims.ts';
import { decideClaim } from '../domain/claims/decide.ts';
import { claimInstructions } from '../domain/claims/instructions.ts';
import { recheckClaim } from '../domain/claims/request-check.ts';
import { listStaffClaims, RESULT_WORDS, staffClaimDetails, TRIGGER_WORDS, type StaffClaimRow } from '../domain/claims/staff-claims.ts';
import { appError } from '../errors/errors.ts';
import { claimWorkflowId } from '../workflows/contracts/workflow-ids.ts';
import { Claim } from './claims.ts';
import { defineOperation, type OperationContext } from './operation.ts';
import { Id, PageQuery, page } from './schemas.ts';
import { asStaff, audit, STAFF_ERROR_CODES } from './staff.ts';

/** The statuses a claim can have (the console's filter offers each). */
export { CLAIM_STATUSES };

/** Longest reason a decision takes: the claimant reads it in a mail and on their claim page. */
export const DECISION_REASON_MAX = 1000;

const LastCheck = Claim.shape.last_check;

const StaffClaim = z.object({
  id: Id,
  status: z.enum(CLAIM_STATUSES),
  method: Claim.shape.method,
  listing_id: Id,
  listing_name: z.string(),
  slug: z.string(),
  claimant_email: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  age_seconds: z.int().describe('How long ago the claim was made'),
  last_check: LastCheck,
  decision: Claim.shape.decision,
});

const ClaimCheck = z.object({
  checked_at: z.string(),
  trigger: z.enum(['schedule', 'request', 'email_link', 'staff']),
  trigger_words: z.string().describe('What started the check, in words'),
  result: z.enum(['found', 'not_found', 'error']),
  result_words: z.string().describe('What the check found, in words'),
  detail: z.string().describe('What was seen: the TXT values, the HTTP status of the file, the tags in <head>, ...'),
});

const staffClaimView = (c: StaffClaimRow, now: Date) => ({
  id: c.id,
  status: c.status,
  method: c.method,
  listing_id: c.listing_id,
  listing_name: c.listing_name,
  slug: c.slug,
  claimant_email: c.claimant_email,
  created_at: c.created_at.toISOString(),
  expires_at: c.expires_at.toISOString(),
  age_seconds: Math.max(0, Math.floor((now.getTime() - c.created_at.getTime()) / 1000)),
  last_check: c.check_at ? { checked_at: c.check_at.toISOString(), result: c.check_result!, detail: c.check_detail! } : null,
  decision: c.decision ? { outcome: c.decision, reason: c.decision_reason!, decided_at: c.decided_at!.toISOString() } : null,
});

const ClaimIdInput = z.object({ claim_id: Id });

export const staffListClaimsOp = defineOperation({
  name: 'staff_list_claims',
  summary: 'Site team: this site’s ownership claims',
  description:
    'Claims on this site’s listings, newest first, one page: each with its listing, the claimant’s email, the method, its age and ' +
    'its latest check. `status` narrows to one status; `stuck` to pending claims past their expiry or not checked for 6 hours. ' +
    'For support and admins; the read is recorded in the staff audit log.',
  method: 'GET',
  path: '/staff/claims',
  scope: 'staff:claims',
  idempotent: false,
  readOnly: true,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({
    status: z.enum(CLAIM_STATUSES).optional(),
    stuck: z.boolean().optional().describe('Only pending claims whose workflow seems not to run'),
    ...PageQuery,
  }),
  output: page(StaffClaim),
  async handler(input, ctx) {
    const actor = await asStaff(ctx, ['admin', 'support']);
    const now = ctx.clock.now();
    const filter = { siteId: ctx.site.id, status: input.status, stuck: input.stuck, now };
    const found = await listStaffClaims(ctx.db, filter, input.page, input.per_page);
    await audit(ctx, actor, { operation: 'staff_list_claims', input, after: { found: found.total } });
    return { ...found, items: found.items.map((c) => staffClaimView(c, now)) };
  },
});

export const staffGetClaimOp = defineOperation({
  name: 'staff_get_claim',
  summary: 'Site team: one claim with every check made',
  description:
    'A claim of this site as support needs it: the listing, the claimant, what the claimant was asked to publish, every check ' +
    'made (what started it and what it found, in words and as seen), the site team’s decision if any, and its workflow id. ' +
    'For support and admins; the read is recorded in the staff audit log.',
  method: 'GET',
  path: '/staff/claims/{claim_id}',
  scope: 'staff:claims',
  idempotent: false,
  readOnly: true,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: ClaimIdInput,
  output: StaffClaim.extend({
    closed_at: z.string().nullable(),
    looks_for: z.string().describe('What the claimant was asked to publish, in words'),
    decided_by: z.string().nullable().describe('The email of the staff member who decided (null: the command line, or no decision)'),
    checks: z.array(ClaimCheck).describe('Oldest first'),
    workflow_id: z.string(),
  }),
  async handler(input, ctx) {
    const actor = await asStaff(ctx, ['admin', 'support']);
    const { claim, checks } = await staffClaimDetails(ctx.db, ctx.site.id, input.claim_id);
    await audit(ctx, actor, { operation: 'staff_get_claim', input, target: { kind: 'claim', id: String(claim.id) } });
    return {
      ...staffClaimView(claim, ctx.clock.now()),
      closed_at: claim.closed_at?.toISOString() ?? null,
      looks_for: claimInstructions(claim, claim.listing_url).text,
      decided_by: claim.decided_by_email,
      checks: checks.map((k) => ({
        checked_at: k.checked_at.toISOString(),
        trigger: k.trigger,
        trigger_words: TRIGGER_WORDS[k.trigger] ?? k.trigger,
        result: k.result,
        result_words: RESULT_WORDS[k.result],
        detail: k.detail,
      })),
      workflow_id: claimWorkflowId(claim.id),
    };
  },
});

/** The claim's state for the audit log's before/after. */
const auditState = (c: Pick<ClaimRow, 'status' | 'check_at' | 'check_result'>) => ({
  status: c.status,
  last_check: c.check_at ? { checked_at: c.check_at.toISOString(), result: c.check_result } : null,
});

export const staffRecheckClaimOp = defineOperation({
  name: 'staff_recheck_claim',
  summary: 'Site team: check a pending claim now',
  description:
    'Checks the DNS record, meta tag or file at once through the claim’s workflow (no rate limit), starting the workflow again ' +
    'first when it had closed; an email claim’s workflow is only started again. Answers the claim after the check. ' +
    'For support and admins; audited with the claim before and after.',
  method: 'POST',
  path: '/staff/claims/{claim_id}/recheck',
  scope: 'staff:claims',
  idempotent: false,
  readOnly: false,
  errorCodes: [...STAFF_ERROR_CODES, 'claim_not_pending', 'workflow_unavailable'],
  tags: ['staff'],
  input: ClaimIdInput,
  output: StaffClaim,
  async handler(input, ctx) {
    const actor = await asStaff(ctx, ['admin', 'support']);
    const { claim } = await staffClaimDetails(ctx.db, ctx.site.id, input.claim_id);
    const after = await recheckClaim(ctx.db, ctx.workflows, ctx.config.claims, claim.id);
    const target = { kind: 'claim', id: String(claim.id) };
    await audit(ctx, actor, { operation: 'staff_recheck_claim', input, target, before: auditState(claim), after: auditState(after) });
    const { claim: now } = await staffClaimDetails(ctx.db, ctx.site.id, claim.id);
    return staffClaimView(now, ctx.clock.now());
  },
});

export const staffDecideClaimOp = defineOperation({
  name: 'staff_decide_claim',
  summary: 'Site team: approve or reject a pending claim',
  description:
    'Approving makes the claimant the listing’s owner exactly as a found proof does (the listing’s history, the previous ' +
    'owner’s mail, the listing’s other pending claims canceled). Rejecting closes the claim as `rejected`. Either way the ' +
    'claim’s workflow is told to end, and the claimant is mailed `reason` and reads it on their claim page. ' +
    'A verified claim answers 409 `claim_already_verified`; another closed one 409 `claim_not_pending`. ' +
    'For support and admins; audited with the claim and the listing’s owner before and after.',
  method: 'POST',
  path: '/staff/claims/{claim_id}/decision',
  scope: 'staff:claims',
  idempotent: true,
  readOnly: false,
  destructive: true,
  errorCodes: [...STAFF_ERROR_CODES, 'claim_already_verified', 'claim_not_pending', 'decision_reason_invalid'],
  tags: ['staff'],
  input: ClaimIdInput.extend({
    decision: z.enum(['approve', 'reject']),
    // Checked in the handler: a missing or overlong reason is a refusal in words (422), not a schema error.
    reason: z
      .string()
      .max(20_000)
      .optional()
      .describe(`Why, for the claimant: mailed to them and shown on their claim page (1 to ${DECISION_REASON_MAX} characters)`),
  }),
  output: StaffClaim,
  handler: (input, ctx) => decideAsStaff(input, ctx),
});

async function decideAsStaff(input: { claim_id: number; decision: 'approve' | 'reject'; reason?: string }, ctx: OperationContext) {
  const actor = await asStaff(ctx, ['admin', 'support']);
  const reason = decisionReason(input.reason);
  const decision = input.decision === 'approve' ? ('approved' as const) : ('rejected' as const);
  const target = { kind: 'claim', id: String(input.claim_id) };
  const done = await decideClaim(
    ctx.db,
    {
      claimId: input.claim_id,
      siteId: ctx.site.id,
      decision,
      reason,
      decidedBy: actor.userId,
      baseUrl: ctx.config.baseUrl,
      now: ctx.clock.now(),
    },
    (trx, d) =>
      audit(ctx, actor, { operation: 'staff_decide_claim', input: { ...input, reason }, target, before: d.before, after: d.after }, trx),
  );
  // The workflow settles (the previous owner's mail, the canceled claims' workflows) and ends;
  // one that is not running has nothing to end, and the mail sweeper sends what was queued.
  for (const id of [input.claim_id, ...done.canceledClaimIds]) await tellWorkflow(ctx, id);
  const { claim } = await staffClaimDetails(ctx.db, ctx.site.id, input.claim_id);
  return staffClaimView(claim, ctx.clock.now());
}

function decisionReason(given: string | undefined): string {
  const reason = given?.trim() ?? '';
  const message = !reason
    ? 'Say why: the claimant reads the reason in a mail and on their claim page.'
    : reason.length > DECISION_REASON_MAX
      ? `Keep the reason to ${DECISION_REASON_MAX} characters (it has ${reason.length}).`
      : null;
  if (message) throw appError('decision_reason_invalid', message, { errors: [{ path: 'reason', message }] });
  return reason;
}

async function tellWorkflow(ctx: OperationContext, claimId: number): Promise<void> {
  try {
    await ctx.workflows.signalClaimClosed(claimId);
  } catch (err) {
    ctx.log?.warn({ err, claimId }, 'could not signal the claim workflow; it sees the claim closed at its next check');
  }
}

export const staffClaimOperations = [staffListClaimsOp, staffGetClaimOp, staffRecheckClaimOp, staffDecideClaimOp] as const;
