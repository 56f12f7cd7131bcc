import type { ConnectionLike, ScheduleOptions } from '@temporalio/client';
import { temporalClientSdk } from './client-sdk.ts';
import { TASK_QUEUES } from '../workflows/contracts/task-queues.ts';

/** Id of the Schedule that closes each week (docs/architecture.md: How a workflow travels). */
export const WEEKLY_CLOSE_SCHEDULE_ID = 'weekly-close';
/** Id of the Schedule that scans the live week's votes every hour. */
export const VOTE_SCAN_SCHEDULE_ID = 'vote-scan';
/** Id of the Schedule that purges expired rows every day. */
export const MAINTENANCE_SCHEDULE_ID = 'maintenance';

/** What the weekly close Schedule is: Monday 00:00 UTC, never two at once, catch up a missed week. */
export function weeklyCloseSchedule(): ScheduleOptions {
  return {
    scheduleId: WEEKLY_CLOSE_SCHEDULE_ID,
    spec: { cronExpressions: ['0 0 * * MON'], timezone: 'UTC' },
    action: {
      type: 'startWorkflow',
      workflowType: 'weeklyCloseWorkflow',
      taskQueue: TASK_QUEUES.ranking,
      // The Schedule appends the scheduled time to this id.
      workflowId: WEEKLY_CLOSE_SCHEDULE_ID,
      args: [{}],
      staticSummary: 'Weekly close: freeze last week’s ranks on every site',
    },
    policies: { overlap: 'SKIP', catchupWindow: '7 days' },
  };
}

/**
 * What the maintenance Schedule is: every day at 03:00 UTC (quiet hours), on the ranking queue
 * (the queue of scheduled jobs); a missed day is simply done the next day.
 */
export function maintenanceSchedule(): ScheduleOptions {
  return {
    scheduleId: MAINTENANCE_SCHEDULE_ID,
    spec: { cronExpressions: ['0 3 * * *'], timezone: 'UTC' },
    action: {
      type: 'startWorkflow',
      workflowType: 'maintenanceWorkflow',
      taskQueue: TASK_QUEUES.ranking,
      workflowId: MAINTENANCE_SCHEDULE_ID,
      args: [{}],
      staticSummary: 'Maintenance: purge expired keys, OAuth rows, sessions and email links',
    },
    policies: { overlap: 'SKIP', catchupWindow: '1 day' },
  };
}

/**
 * What the vote scan Schedule is: every hour at :30 (clear of the weekly close at Monday 00:00),
 * scanning the live week of every site; never two at once, a missed hour is not caught up (the
 * next scan looks at the whole week anyway).
 */
export function voteScanSchedule(): ScheduleOptions {
  return {
    scheduleId: VOTE_SCAN_SCHEDULE_ID,
    spec: { cronExpressions: ['30 * * * *'], timezone: 'UTC' },
    action: {
      type: 'startWorkflow',
      workflowType: 'voteScanWorkflow',
      taskQueue: TASK_QUEUES.ranking,
      workflowId: VOTE_SCAN_SCHEDULE_ID,
      args: [{}],
      staticSummary: 'Vote scan: find vote rings in the live week and discount their votes',
    },
    policies: { overlap: 'SKIP', catchupWindow: '1 hour' },
  };
}

/** Every Schedule the worker keeps in place. */
export const SCHEDULES = [weeklyCloseSchedule, maintenanceSchedule, voteScanSchedule];

/**
 * Creates a Schedule, or brings an existing one in line with `options` (another worker created
 * it, or an earlier version of this code did). Safe to call at every worker start, from several
 * workers at once.
 */
export async function ensureSchedule(connection: ConnectionLike, namespace: string, options: ScheduleOptions): Promise<'created' | 'updated'> {
  const { Client, ScheduleAlreadyRunning } = temporalClientSdk();
  const client = new Client({ connection, namespace });
  try {
    await client.schedule.create(options);
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  await client.schedule.getHandle(options.scheduleId).update((previous) => ({
    ...previous,
    spec: options.spec,
    action: options.action,
    policies: { ...previous.policies, ...options.policies },
  }));
  return 'updated';
}

/** Ensures every Schedule of SCHEDULES; returns what happened to each, by id. */
export async function ensureSchedules(connection: ConnectionLike, namespace: string): Promise<Record<string, 'created' | 'updated'>> {
  const outcome: Record<string, 'created' | 'updated'> = {};
  for (const schedule of SCHEDULES) {
    const options = schedule();
    outcome[options.scheduleId] = await ensureSchedule(connection, namespace, options);
  }
  return outcome;
}
