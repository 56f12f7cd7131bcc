import { Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy, type ConnectionLike, type ScheduleOptions } from '@temporalio/client';
import { TASK_QUEUES } from './task-queues.ts';

/** Id of the Schedule that closes each week (DESIGN.md §6). */
export const WEEKLY_CLOSE_SCHEDULE_ID = 'weekly-close';

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
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '7 days' },
  };
}

/**
 * Creates the weekly close Schedule, or brings an existing one in line with weeklyCloseSchedule()
 * (another worker created it, or an earlier version of this code did). Safe to call at every
 * worker start, from several workers at once.
 */
export async function ensureWeeklyCloseSchedule(connection: ConnectionLike, namespace: string): Promise<'created' | 'updated'> {
  const client = new Client({ connection, namespace });
  const options = weeklyCloseSchedule();
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
