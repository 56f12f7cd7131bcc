import { issueExists, readIssue, type IssueContent } from '../../domain/newsletter/issue.ts';
import { confirmLinkState, openUnsubscribeLink, type SubscriptionOfLink } from '../../domain/newsletter/subscribers.ts';
import type { OperationContext } from '../operation.ts';

/** What the newsletter's pages read: an issue's web version and what a mailed link would do. */

export { newsletterIssuePath, weekOfIssuePath, type IssueContent, type IssueListing } from '../../domain/newsletter/issue.ts';
export { SUBSCRIBE_ANSWER } from '../../domain/newsletter/subscribers.ts';

/** The site's issue about a closed week, or null when there is none (the week is not closed yet). */
export async function newsletterIssue(c: Pick<OperationContext, 'db' | 'site'>, monday: string): Promise<IssueContent | null> {
  if (!(await issueExists(c.db, c.site.id, monday))) return null;
  return readIssue(c.db, c.site, monday);
}

/** Whether a confirmation link works now (without using it). */
export const confirmLink = (c: Pick<OperationContext, 'db' | 'clock'>, token: string) => confirmLinkState(c.db, token, c.clock.now());

/** The subscription an unsubscribe link names (without using it); null when forged. */
export const newsletterUnsubscribeLink = (c: Pick<OperationContext, 'db'>, token: string): Promise<SubscriptionOfLink | null> =>
  openUnsubscribeLink(c.db, token);
