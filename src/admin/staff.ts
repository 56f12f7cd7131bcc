import { readSiteByKey } from '../domain/sites/sites.ts';
import { STAFF_ROLES } from '../domain/staff/roles.ts';
import { appError, badRequest } from '../errors/errors.ts';
import { staffResetSecondFactorOp } from '../operations/staff-factors.ts';
import { staffGrantRoleOp, staffRevokeRoleOp } from '../operations/staff-roles.ts';
import { runOperationFromShell, type ShellServices } from './run-operation.ts';

export const STAFF_USAGE = `  npm run admin -- staff:grant --email E --role ${STAFF_ROLES.join('|')} [--site K]   (no --site: every site)
  npm run admin -- staff:revoke --email E --role ${STAFF_ROLES.join('|')} [--site K]
  npm run admin -- staff:reset-factor --email E [--site K]   (as the console's reset: audited, they enrol again)`;

/** parseArgs options of the staff:* commands (--email and --site are shared with other groups). */
export const STAFF_OPTIONS = { role: { type: 'string' } } as const;

export interface StaffFlags {
  email?: string;
  role?: string;
  site?: string;
}

/**
 * Runs `staff:grant` or `staff:revoke`; returns null for other commands. They call the console's
 * operations (staff_grant_role, staff_revoke_role), so the rules and the audit row are the same;
 * the shell acts as an admin of every site, which is how the first admin is made.
 */
export async function runStaffCommand(services: ShellServices, command: string | undefined, f: StaffFlags): Promise<number | null> {
  if (command !== 'staff:grant' && command !== 'staff:revoke') return null;
  if (!f.email) throw badRequest('usage', `--email is required.\n${STAFF_USAGE}`);
  if (!f.role) throw badRequest('usage', `--role is required.\n${STAFF_USAGE}`);
  if (f.site !== undefined && !(await readSiteByKey(services.db, f.site))) throw badRequest('unknown_site', `Unknown site "${f.site}".`);
  const op = command === 'staff:grant' ? staffGrantRoleOp : staffRevokeRoleOp;
  const input = { email: f.email, role: f.role, all_sites: f.site === undefined };
  const done = await runOperationFromShell(services, op, input, f.site);
  const where = f.site === undefined ? 'every site' : `site ${f.site}`;
  if (command === 'staff:grant') console.log(`${done.changed ? 'granted' : 'already held'}: ${done.email} is ${done.role} on ${where}`);
  else
    console.log(
      `${done.changed ? 'revoked' : 'not held'}: ${done.email} ${done.changed ? 'is no longer' : 'was not'} ${done.role} on ${where}`,
    );
  return 0;
}

/**
 * `staff:reset-factor`: removes a staff member's second factors through the console's operation
 * (same checks, same audit row, named "command line"); they enrol again at their next visit.
 */
export async function resetFactorCommand(services: ShellServices, f: StaffFlags): Promise<number> {
  if (!f.email) throw badRequest('usage', `--email is required.\n${STAFF_USAGE}`);
  const user = await services.db('users').whereRaw('lower(email) = lower(?)', [f.email.trim()]).first('id', 'email');
  if (!user) throw appError('not_found', `No account has the email ${f.email}.`);
  const done = await runOperationFromShell(
    services,
    staffResetSecondFactorOp,
    { user_id: user.id, reason: 'Reset from the command line.' },
    f.site,
  );
  const b = done.before;
  console.log(
    `reset: ${done.email} had ${b.totp ? 'an authenticator app' : 'no authenticator app'}, ${b.recovery_codes} recovery code(s), ${b.passkeys} passkey(s); they set up a new factor at their next visit`,
  );
  return 0;
}
