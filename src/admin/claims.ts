import type { Db } from '../db/knex.ts';
import { CLAIM_STATUSES } from '../domain/claims/claims.ts';
import { STUCK_AFTER_MS } from '../domain/claims/staff-claims.ts';
import { badRequest, notFound } from '../errors/errors.ts';
import { staffRecheckClaimOp } from '../operations/staff-claims.ts';
import { runOperationFromShell, type ShellServices } from './run-operation.ts';

export const CLAIMS_USAGE = `  npm run admin -- claims:list [--status pending|verified|expired|canceled|rejected] [--stuck] [--limit N]
  npm run admin -- claims:recheck --id N   (check a pending claim now; restarts its workflow if it had closed)`;

const STATUSES: readonly string[] = CLAIM_STATUSES;

interface ClaimLine {
  id: number;
  status: string;
  method: string;
  created_at: Date;
  expires_at: Date;
  listing_id: number;
  slug: string;
  email: string;
  last_check_at: Date | null;
  last_result: string | null;
}

/** `claims:list`: newest first, one line each, with the latest check; `--stuck` lists pending claims that need support. */
export async function claimsList(db: Db, flags: { status?: string; stuck?: boolean; limit?: string }): Promise<string> {
  if (flags.status !== undefined && !STATUSES.includes(flags.status)) {
    throw badRequest('invalid_status', `--status must be one of ${STATUSES.join(', ')}, not "${flags.status}".`);
  }
  const limit = flags.limit === undefined ? 50 : Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw badRequest('invalid_limit', '--limit must be a whole number from 1 to 1000.');
  const query = db('claims as c')
    .join('listings as l', 'l.id', 'c.listing_id')
    .join('users as u', 'u.id', 'c.user_id')
    .joinRaw('LEFT JOIN LATERAL (SELECT checked_at, result FROM claim_checks WHERE claim_id = c.id ORDER BY id DESC LIMIT 1) lc ON true')
    .select(
      'c.id',
      'c.status',
      'c.method',
      'c.created_at',
      'c.expires_at',
      'c.listing_id',
      'l.slug',
      'u.email',
      'lc.checked_at as last_check_at',
      'lc.result as last_result',
    )
    .orderBy('c.id', 'desc')
    .limit(limit);
  if (flags.status) query.where('c.status', flags.status);
  if (flags.stuck) {
    // Pending although expired (the workflow did not end it), or not checked lately (its workflow is not running).
    query.where('c.status', 'pending').where((q) =>
      q.where('c.expires_at', '<', db.fn.now()).orWhere((q2) =>
        q2
          .whereNot('c.method', 'email')
          .where('c.created_at', '<', new Date(Date.now() - STUCK_AFTER_MS))
          .where((q3) => q3.whereNull('lc.checked_at').orWhere('lc.checked_at', '<', new Date(Date.now() - STUCK_AFTER_MS))),
      ),
    );
  }
  const rows: ClaimLine[] = await query;
  if (rows.length === 0) return 'No claims.';
  return ['id\tstatus\tmethod\tlisting\tclaimant\tcreated\texpires\tlast check', ...rows.map(line)].join('\n');
}

const stamp = (d: Date | null) => (d ? d.toISOString().slice(0, 16).replace('T', ' ') : '-');

function line(c: ClaimLine): string {
  const check = c.last_check_at ? `${c.last_result} at ${stamp(c.last_check_at)}` : 'never';
  return `${c.id}\t${c.status}\t${c.method}\t${c.listing_id} ${c.slug}\t${c.email}\t${stamp(c.created_at)}\t${stamp(c.expires_at)}\t${check}`;
}

/**
 * `claims:recheck --id N`: staff_recheck_claim on the claim's site, as the console's button (audited
 * as the command line): the Update `verifyNow` on its workflow, started again when it had closed.
 */
export async function claimsRecheck(db: Db, services: ShellServices, flags: { id?: string }): Promise<string> {
  const id = Number(flags.id);
  if (!flags.id || !/^\d+$/.test(flags.id) || !Number.isSafeInteger(id)) throw badRequest('invalid_id', '--id must be a claim id.');
  const site = await db('claims as c')
    .join('listings as l', 'l.id', 'c.listing_id')
    .join('sites as s', 's.id', 'l.site_id')
    .where('c.id', id)
    .first('s.key');
  if (!site) throw notFound(`Claim ${id}`);
  const claim = await runOperationFromShell(services, staffRecheckClaimOp, { claim_id: id }, site.key);
  const check = claim.last_check ? `${claim.last_check.result}: ${claim.last_check.detail}` : 'no check yet';
  return `claim ${claim.id} is ${claim.status} (${claim.method}); last check ${check}`;
}
