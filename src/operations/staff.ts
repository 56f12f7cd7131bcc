import type { StaffActor } from '../domain/staff/access.ts';
import { requireStaff } from '../domain/staff/access.ts';
import { recordAudit, type AuditEntry } from '../domain/staff/audit.ts';
import type { StaffRole } from '../domain/staff/roles.ts';
import type { Db } from '../db/knex.ts';
import type { ErrorCode } from '../errors/errors.ts';
import { callerId, type OperationContext } from './operation.ts';
import { sessionFactorOf } from './second-factor.ts';

/**
 * What every staff operation shares: the role check made on each call (the key's scope is not
 * enough: a role can be revoked after its key was made) and the audit row it writes.
 */

/** Codes every staff operation may answer beyond its scope's: no role (403), staff of another site (404). */
export const STAFF_ERROR_CODES: ErrorCode[] = ['staff_role_required', 'not_found'];

/** The credential of the admin command line (src/admin/run-operation.ts): break-glass, acts as admin. */
export const COMMAND_LINE_CREDENTIAL = 'command-line';

/** The acting staff member on this site, or the refusal. */
export async function asStaff(ctx: OperationContext, roles: readonly StaffRole[]): Promise<StaffActor> {
  if (ctx.principal?.credentialId === COMMAND_LINE_CREDENTIAL) return { userId: null, role: 'admin', factor: null };
  const actor = await requireStaff(ctx.db, callerId(ctx), ctx.site.id, roles);
  // The audit names the factor of a web session; API keys are not second-factor sessions (null).
  return { ...actor, factor: (await sessionFactorOf(ctx))?.factor ?? null };
}

/** Appends the action's audit row (in `db`, the transaction of its effect when it has one). */
export const audit = (
  ctx: OperationContext,
  actor: StaffActor,
  entry: Omit<AuditEntry, 'actor' | 'requestId' | 'siteId' | 'at'>,
  db: Db = ctx.db,
) => recordAudit(db, { ...entry, actor, requestId: ctx.requestId, siteId: ctx.site.id, at: ctx.clock.now() });
