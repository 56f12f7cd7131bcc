import type { Db } from '../../db/knex.ts';
import { forbidden, notFound } from '../../errors/errors.ts';
import { rolesOf, STAFF_ROLES, type StaffRole } from './roles.ts';

/** Who is acting as staff: the person, and the role this action is allowed by. */
export interface StaffActor {
  /** Null: the admin command line, which has no account (the audit names it "command line"). */
  userId: number | null;
  role: StaffRole;
  /** The second factor of the web session acting (totp, recovery_code); null for API keys and the CLI. */
  factor: string | null;
}

/**
 * The check every staff operation makes, whatever its key's scopes: a person with no staff role
 * gets 403; staff of other sites only get 404 (this site's data does not exist for them); staff of
 * this site whose roles do not allow the action get 403. The strongest allowed role is the actor's.
 */
export async function requireStaff(db: Db, userId: number, siteId: number, allowed: readonly StaffRole[]): Promise<StaffActor> {
  const grants = await rolesOf(db, userId);
  if (!grants.length) throw forbidden('staff_role_required', 'This operation is for the site team.');
  const here = grants.filter((g) => g.siteId === null || g.siteId === siteId);
  if (!here.length) throw notFound('This resource');
  const role = STAFF_ROLES.find((r) => allowed.includes(r) && here.some((g) => g.role === r));
  if (!role) {
    throw forbidden(
      'staff_role_required',
      `This operation needs the role ${allowed.join(' or ')}; yours: ${[...new Set(here.map((g) => g.role))].join(', ')}.`,
    );
  }
  return { userId, role, factor: null };
}
