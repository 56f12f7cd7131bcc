import { listOwnedDrafts } from '../../domain/drafts/drafts.ts';
import { findCompanyListing } from '../../domain/listings/company-listing.ts';
import { callerId, type OperationContext } from '../operation.ts';

/** What the owner's listings page reads beyond list_my_drafts: the drafts still in the works. */

/** The caller's newest drafts not yet submitted (a submitted one shows as its listing), newest first. */
export function openDrafts(c: Pick<OperationContext, 'db' | 'principal'>, perPage: number) {
  return listOwnedDrafts(c.db, callerId(c), 1, perPage, { open: true });
}

/**
 * The listing that already holds the company of one of the caller's ready drafts on its site, if
 * any: submit_draft would refuse it (already_listed), so its page offers the claim instead.
 */
export async function companyListedForDraft(
  c: Pick<OperationContext, 'db' | 'principal'>,
  draftId: number,
): Promise<{ slug: string } | undefined> {
  const draft: { site_id: number; url: string } | undefined = await c
    .db('drafts')
    .where({ id: draftId, owner_id: callerId(c), status: 'ready' })
    .first('site_id', 'url');
  if (!draft) return undefined;
  const listing = await findCompanyListing(c.db, draft.site_id, draft.url);
  return listing && { slug: listing.slug };
}
