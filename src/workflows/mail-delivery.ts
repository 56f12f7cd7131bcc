import { proxyActivities } from '@temporalio/workflow';
import type { MailActivities } from '../activities/mail.ts';

/**
 * How every workflow sends the mail it queued in the outbox: one activity that may take a while
 * on a slow relay (it heartbeats per mail) and is tried again until the relay takes the mails;
 * what was sent is never sent twice (the outbox marks each mail).
 */
export const { deliverMail } = proxyActivities<MailActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
