import type { Db } from '../../db/knex.ts';
import { pageOf } from '../../db/pages.ts';
import { notFound } from '../../errors/errors.ts';
import type { CheckOutcome } from './check-result.ts';
import { claimQuery, type ClaimRow, type ClaimStatus } from './claims.ts';
import type { CheckTrigger } from './verify.ts';

/** A pending claim is stuck when it is past its expiry, or nothing checked it for this long. */
export const STUCK_AFTER_MS = 6 * 3600_000;

/** A claim as the site team lists it: the claim row with its claimant's address. */
export type StaffClaimRow = ClaimRow & { claimant_email: string; site_id: number; decided_by_email: string | null };

export interface StaffClaimFilter {
  siteId: number;
  status?: ClaimStatus;
  /** Only pending claims past their expiry or not checked for STUCK_AFTER_MS (their workflow is not running). */
  stuck?: boolean;
  now: Date;
}

function staffClaimQuery(db: Db) {
  return claimQuery(db)
    .join('users as u', 'u.id', 'c.user_id')
    .leftJoin('users as d', 'd.id', 'c.decided_by')
    .select('u.email as claimant_email', 'l.site_id', 'd.email as decided_by_email');
}

function narrow(db: Db, query: ReturnType<typeof staffClaimQuery>, f: StaffClaimFilter) {
  query.where('l.site_id', f.siteId);
  if (f.status) query.where('c.status', f.status);
  if (f.stuck) {
    const since = new Date(f.now.getTime() - STUCK_AFTER_MS);
    query.where('c.status', 'pending').where((q) =>
      q.where('c.expires_at', '<', f.now).orWhere((q2) =>
        q2
          .whereNot('c.method', 'email')
          .where('c.created_at', '<', since)
          .where((q3) => q3.whereNull('lc.checked_at').orWhere('lc.checked_at', '<', since)),
      ),
    );
  }
  return query;
}

/** This site's claims, newest first, one page. */
export async function listStaffClaims(db: Db, filter: StaffClaimFilter, page: number, perPage: number) {
  const rows = narrow(db, staffClaimQuery(db), filter).orderBy('c.id', 'desc');
  // The count needs the same joins (the stuck filter reads the latest check).
  const all = db.from(narrow(db, staffClaimQuery(db), filter).as('found'));
  return pageOf<StaffClaimRow>(rows, all, page, perPage);
}

/** One check of a claim, as recorded. */
export interface ClaimCheckRow {
  id: number;
  trigger: CheckTrigger;
  result: CheckOutcome;
  detail: string;
  checked_at: Date;
}

/** A claim of this site with every check made of it, oldest first; another site's is not found. */
export async function staffClaimDetails(db: Db, siteId: number, claimId: number) {
  const claim: StaffClaimRow | undefined = await staffClaimQuery(db).where('c.id', claimId).first();
  if (!claim || claim.site_id !== siteId) throw notFound(`Claim ${claimId}`);
  const checks: ClaimCheckRow[] = await db('claim_checks')
    .where({ claim_id: claimId })
    .orderBy('id')
    .select('id', 'trigger', 'result', 'detail', 'checked_at');
  return { claim, checks };
}

/** What started a check, in words. */
export const TRIGGER_WORDS: Record<CheckTrigger, string> = {
  schedule: 'Scheduled check',
  request: 'Asked for (Check now, or support)',
  email_link: 'Emailed link opened',
  staff: 'Approved by the site team',
};

/** What a check found, in words. */
export const RESULT_WORDS: Record<CheckOutcome, string> = {
  found: 'Proof found',
  not_found: 'Proof not found',
  error: 'Could not check (their server or ours failed); checked again later',
};
