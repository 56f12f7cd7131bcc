import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { LaunchActivities } from '../activities/launches.ts';
import { paidLaunchSignal, recheckSignal } from './contracts/messages.ts';
import { msUntilWeekStart } from './contracts/weeks.ts';

const STEP_TIMEOUT = '1 minute';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// Activities are idempotent (row locks, unique slots, deduped notices), so retries are safe.
const acts = proxyActivities<LaunchActivities>({
  startToCloseTimeout: STEP_TIMEOUT,
  retry: { initialInterval: '2 seconds', maximumInterval: '5 minutes' },
});

/** Durations of the launch flow; tests shorten them. */
export interface LaunchTiming {
  /** Re-checks while waiting for badge or profile: every `everyMs` for `forMs`, phase after phase. */
  recheck: { everyMs: number; forMs: number }[];
  /** Badge checks after a free launch: `afterLaunchChecks` of them, `afterLaunchEveryMs` apart. */
  afterLaunchEveryMs: number;
  afterLaunchChecks: number;
  /** How long a badge may be missing after launch before the owner is told it is over grace. */
  graceMs: number;
}

/** Badge checks: every 10 min for the first hour, hourly for 7 days; weekly for 4 weeks after launch; 7 days' grace. */
export const DEFAULT_LAUNCH_TIMING: LaunchTiming = {
  recheck: [
    { everyMs: 10 * MINUTE, forMs: HOUR },
    { everyMs: HOUR, forMs: 7 * DAY },
  ],
  afterLaunchEveryMs: 7 * DAY,
  afterLaunchChecks: 4,
  graceMs: 7 * DAY,
};

export interface ListingLaunchInput {
  listingId: number;
  timing?: Partial<LaunchTiming>;
}

interface State {
  status: string;
  plan: 'free' | 'paid' | null;
  launch_week: string | null;
}

/** Delay until the next scheduled re-check after `elapsedMs` of waiting; null once the schedule is over. */
export function nextRecheckDelay(phases: LaunchTiming['recheck'], elapsedMs: number): number | null {
  let start = 0;
  for (const phase of phases) {
    const end = start + phase.forMs;
    if (elapsedMs < end) return Math.min(phase.everyMs, end - elapsedMs);
    start = end;
  }
  return null;
}

const isWaiting = (s: State) => s.plan === 'free' && ['draft', 'awaiting_profile', 'awaiting_badge'].includes(s.status);

/**
 * The launch of one listing (`listing:{id}`), free or paid. The state lives in Postgres; the flow
 * owns the clocks: re-checks while the listing waits for its badge or profile, the durable timer
 * until Monday 00:00 UTC of its week, the last badge check and going live, then the badge checks
 * of the weeks after a free launch. Signals wake it to look again at once.
 */
export async function listingLaunchWorkflow(input: ListingLaunchInput): Promise<string> {
  const timing = { ...DEFAULT_LAUNCH_TIMING, ...input.timing };
  const id = input.listingId;
  let woken = false;
  setHandler(recheckSignal, () => void (woken = true));
  setHandler(paidLaunchSignal, () => void (woken = true));
  /** Sleeps up to `ms` (forever with null); true when a signal cut it short. */
  const wait = async (ms: number | null): Promise<boolean> => {
    const signalled = ms === null ? (await condition(() => woken), true) : ms > 0 ? await condition(() => woken, ms) : woken;
    woken = false;
    return signalled;
  };

  let state: State = await acts.advanceLaunch(id);
  let waitingSince = Date.now();
  let toldScheduleOver = false;
  for (;;) {
    if (isWaiting(state)) {
      const delay = nextRecheckDelay(timing.recheck, Date.now() - waitingSince);
      if (delay === null && !toldScheduleOver) {
        await acts.tellRechecksOver(id, new Date(waitingSince).toISOString());
        toldScheduleOver = true;
      }
      state = (await wait(delay)) ? await acts.advanceLaunch(id) : await acts.recheckAndAdvance(id);
      if (!isWaiting(state)) [waitingSince, toldScheduleOver] = [Date.now(), false];
    } else if (state.status === 'scheduled' && state.launch_week) {
      if (await wait(msUntilWeekStart(state.launch_week, Date.now()))) {
        state = await acts.advanceLaunch(id); // re-aimed: look at the new week
        continue;
      }
      state = await acts.launchWhenDue(id);
      if (isWaiting(state)) waitingSince = Date.now();
    } else if (state.status === 'live' && state.plan === 'free') {
      return watchAfterLaunch(id, timing, wait);
    } else {
      return state.status;
    }
  }
}

/** The badge checks of the weeks after a free launch, and one more when a grace period is still running. */
async function watchAfterLaunch(id: number, timing: LaunchTiming, wait: (ms: number | null) => Promise<boolean>): Promise<string> {
  let graceEndsAtMs: number | null = null;
  for (let i = 0; i < timing.afterLaunchChecks; i++) {
    await wait(timing.afterLaunchEveryMs);
    const check = await acts.afterLaunchCheck(id, timing.graceMs);
    if (check.status !== 'live' || check.badge === 'unchecked') return check.status;
    graceEndsAtMs = check.graceEndsAtMs;
  }
  if (graceEndsAtMs !== null && graceEndsAtMs > Date.now()) {
    await wait(graceEndsAtMs - Date.now());
    return (await acts.afterLaunchCheck(id, timing.graceMs)).status;
  }
  return 'live';
}
