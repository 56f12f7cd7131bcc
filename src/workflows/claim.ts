import {
  ActivityFailure,
  allHandlersFinished,
  condition,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { ClaimActivities, ClaimReview } from '../activities/claims.ts';
import type { ClaimCheckReport } from '../domain/claims/check.ts';
import type { ClaimWorkflowInput, VerifyNowResult } from '../domain/claims/claim-flow.ts';
import { claimClosedSignal, emailLinkOpenedSignal, verifyNowUpdate } from './contracts/messages.ts';
import { claimWorkflowId } from './contracts/workflow-ids.ts';
import { deliverMail } from './mail-delivery.ts';

const CHECK_TIMEOUT = '1 minute';
const STEP_TIMEOUT = '30 seconds';

// A check never throws for the site's trouble (that is an `error` result); retries cover ours.
const { checkClaim } = proxyActivities<ClaimActivities>({
  startToCloseTimeout: CHECK_TIMEOUT,
  retry: { maximumAttempts: 3, initialInterval: '2 seconds' },
});
const { reviewClaim, expireClaim } = proxyActivities<ClaimActivities>({
  startToCloseTimeout: STEP_TIMEOUT,
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
type ClaimStatus = ClaimReview['status'];

export type { ClaimWorkflowInput, VerifyNowResult };

/** A check of the schedule; one that failed on our side (after its retries) waits for the next. */
async function scheduledCheck(claimId: number, settle: (report: ClaimCheckReport) => Promise<void>): Promise<void> {
  try {
    await settle(await checkClaim(claimId, 'schedule'));
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
  }
}

/** The delay before the next scheduled check at `now`: the `every` of the phase we are in. */
export function nextCheckDelay(input: Pick<ClaimWorkflowInput, 'startedAt' | 'schedule'>, now: number): number {
  const elapsed = now - input.startedAt;
  const phase = input.schedule.find((p) => elapsed < p.untilMs) ?? input.schedule[input.schedule.length - 1]!;
  return phase.everyMs;
}

/**
 * One claim (`claim:{id}`): checks on its own by the schedule until the claim is verified,
 * canceled or expires (then the claimant is mailed). Time comes from Temporal's clock, so
 * timers survive restarts and tests can shorten the schedule. Email claims only wait for
 * the link (signal `emailLinkOpened`) or expiry.
 */
export async function claimWorkflow(input: ClaimWorkflowInput): Promise<ClaimStatus> {
  // An object, not a `let`: handlers change it while the main loop waits.
  const state = { status: 'pending' as ClaimStatus, poked: false };
  const settle = async (next: { status: ClaimStatus; mailIds: number[]; canceledClaimIds: number[] }) => {
    state.status = next.status;
    if (next.mailIds.length > 0) await deliverMail(next.mailIds);
    for (const id of next.canceledClaimIds) {
      // The other claim's workflow may have ended already; it then has nothing to stop.
      await getExternalWorkflowHandle(claimWorkflowId(id))
        .signal(claimClosedSignal)
        .catch(() => {});
    }
  };
  setHandler(verifyNowUpdate, async () => {
    const report = await checkClaim(input.claimId, 'request');
    await settle(report);
    return { status: report.status, check: report.check };
  });
  setHandler(emailLinkOpenedSignal, () => void (state.poked = true));
  setHandler(claimClosedSignal, () => void (state.poked = true));

  if (input.mailIds?.length) await deliverMail(input.mailIds);
  while (state.status === 'pending') {
    const left = input.expiresAt - Date.now();
    if (left <= 0) {
      await settle({ ...(await expireClaim(input.claimId)), canceledClaimIds: [] });
      break;
    }
    await condition(() => state.poked || state.status !== 'pending', Math.min(nextCheckDelay(input, Date.now()), left));
    if (state.status !== 'pending') break;
    if (state.poked) {
      state.poked = false;
      await settle(await reviewClaim(input.claimId));
    } else if (input.method !== 'email' && Date.now() < input.expiresAt) {
      await scheduledCheck(input.claimId, settle);
    }
  }
  await condition(allHandlersFinished);
  return state.status;
}
