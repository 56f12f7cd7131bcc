import { proxyActivities, sleep } from '@temporalio/workflow';
import type { NotificationMailActivities } from '../activities/notification-mail.ts';
import { deliverMail } from './mail-delivery.ts';

/** Least wait before looking again at a batch the database does not see as due yet (clock skew). */
const RECHECK_MS = 1000;

const { sendNotificationMail } = proxyActivities<NotificationMailActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
/**
 * One person's comment mail batch (`notification-mail:{user}:{due}`): waits until the batch is
 * due, then sends it as one mail, as the follower digests wait for their window. Replies that
 * arrive meanwhile join the batch in the database, not this workflow, so none is lost.
 */
export async function notificationMailWorkflow(input: { userId: number; dueAt: number }): Promise<{ mailed: number }> {
  let wakeAt = input.dueAt;
  for (;;) {
    const wait = wakeAt - Date.now();
    if (wait > 0) await sleep(wait);
    const result = await sendNotificationMail(input.userId);
    if (result.mailIds.length > 0) await deliverMail(result.mailIds);
    // A later batch of the same person (due after this one) has its own run.
    if (result.dueAt === null || result.dueAt > input.dueAt) return { mailed: result.mailIds.length };
    wakeAt = Math.max(result.dueAt, Date.now() + RECHECK_MS);
  }
}
