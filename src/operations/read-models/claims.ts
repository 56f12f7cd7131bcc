import { notFound } from '../../errors/errors.ts';
import type { OperationContext } from '../operation.ts';

/**
 * What the claim form reads beyond the claim operations: the listing it claims. The rules the
 * form shows (the methods, why email cannot prove a company) are the domain's, named here.
 */

export { emailClaimRefusal } from '../../domain/claims/email-domain.ts';
export { CLAIM_METHODS } from '../../domain/claims/instructions.ts';

/** The listing with this slug, any status (as claim_listing: the one submit_draft refused a second one for), or 404. */
export async function claimTarget(c: Pick<OperationContext, 'db'>, slug: string): Promise<{ name: string; url: string }> {
  const listing = await c.db('listings').where({ slug }).first('name', 'url');
  if (!listing) throw notFound('The listing');
  return listing;
}
