import { listOwnedDrafts } from '../../domain/drafts/drafts.ts';
import { callerId, type OperationContext } from '../operation.ts';

/** What the owner's listings page reads beyond list_my_drafts: the drafts still in the works. */

/** The caller's newest drafts not yet submitted (a submitted one shows as its listing), newest first. */
export function openDrafts(c: Pick<OperationContext, 'db' | 'principal'>, perPage: number) {
  return listOwnedDrafts(c.db, callerId(c), 1, perPage, { open: true });
}
