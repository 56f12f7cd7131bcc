import { proxyActivities } from '@temporalio/workflow';
import type { AccountActivities } from '../activities/accounts.ts';
import { deliverMail } from './mail-delivery.ts';

/** Reading every table of one person's data: seconds, even for a prolific owner. */
const PREPARE_TIMEOUT = '5 minutes';

const { prepareAccountExport } = proxyActivities<AccountActivities>({
  startToCloseTimeout: PREPARE_TIMEOUT,
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
export interface AccountExportInput {
  userId: number;
  exportId: number;
}

/**
 * A person's data export (`account-export:{user}:{id}`): builds and stores the JSON archive,
 * then mails its signed, expiring link. Both steps are idempotent, so a retry after a crash
 * neither builds a second archive nor sends a second mail.
 */
export async function accountExportWorkflow(input: AccountExportInput): Promise<{ mailed: boolean }> {
  const mailId = await prepareAccountExport(input.exportId);
  if (mailId === null) return { mailed: false };
  await deliverMail([mailId]);
  return { mailed: true };
}
