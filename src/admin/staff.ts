import type { Db } from '../db/knex.ts';
import { readSiteByKey } from '../domain/sites/sites.ts';
import { recordAudit } from '../domain/staff/audit.ts';
import { grant, revoke, staffRole, STAFF_ROLES } from '../domain/staff/roles.ts';
import type { Clock } from '../domain/time/clock.ts';
import { appError, badRequest } from '../errors/errors.ts';
import { staffResetSecondFactorOp } from '../operations/staff-factors.ts';
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
 * Runs `staff:grant` or `staff:revoke`; returns null for other commands. The shell is where the
 * first admin comes from (and break-glass), so these are audited too, with no acting account.
 */
export async function runStaffCommand(db: Db, clock: Clock, command: string | undefined, f: StaffFlags): Promise<number | null> {
  if (command !== 'staff:grant' && command !== 'staff:revoke') return null;
  if (!f.email) throw badRequest('usage', `--email is required.\n${STAFF_USAGE}`);
  if (!f.role) throw badRequest('usage', `--role is required.\n${STAFF_USAGE}`);
  const role = staffRole(f.role);
  const user = await db('users').whereRaw('lower(email) = lower(?)', [f.email.trim()]).first('id', 'email');
  if (!user) throw appError('not_found', `No account has the email ${f.email}: the person signs up first, then gets a role.`);
  const site = f.site === undefined ? null : await readSiteByKey(db, f.site);
  if (site === undefined) throw badRequest('unknown_site', `Unknown site "${f.site}".`);
  const now = clock.now();
  const change = { userId: user.id, role, siteId: site?.id ?? null, by: null, now };
  const where = site ? `site ${site.key}` : 'every site';
  const changed = await db.transaction(async (trx) => {
    const done = command === 'staff:grant' ? await grant(trx, change) : await revoke(trx, change);
    if (done) {
      await recordAudit(trx, {
        actor: null,
        operation: command,
        input: { email: user.email, role, site: site?.key ?? null },
        target: { kind: 'user', id: user.id },
        siteId: site?.id ?? null,
        at: now,
      });
    }
    return done;
  });
  if (command === 'staff:grant') console.log(`${changed ? 'granted' : 'already held'}: ${user.email} is ${role} on ${where}`);
  else console.log(`${changed ? 'revoked' : 'not held'}: ${user.email} ${changed ? 'is no longer' : 'was not'} ${role} on ${where}`);
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
