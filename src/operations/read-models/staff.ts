import { requireStaff } from '../../domain/staff/access.ts';
import type { Scope } from '../../auth/scopes.ts';
import { ROLE_SCOPES, rolesOf, STAFF_ROLES, staffScopesOf, type StaffRole } from '../../domain/staff/roles.ts';
import { callerId, type OperationContext } from '../operation.ts';

export { STAFF_ROLES, type StaffRole } from '../../domain/staff/roles.ts';

/**
 * The signed-in person's staff roles on this site, for the console's gate and its home page: the
 * same refusals as every staff operation (no role: 403; staff of other sites only: 404). Reading
 * one's own roles changes nothing on the site, so it writes no audit row.
 */
export async function staffRolesHere(c: OperationContext): Promise<StaffRole[]> {
  const userId = callerId(c);
  await requireStaff(c.db, userId, c.site.id, STAFF_ROLES);
  const here = (await rolesOf(c.db, userId)).filter((g) => g.siteId === null || g.siteId === c.site.id);
  return STAFF_ROLES.filter((r) => here.some((g) => g.role === r));
}

/**
 * A session's principal carries no staff scope (a session is a person's own, not the site
 * team's); behind the console's gate it gets the scopes its roles here allow, as a staff member's
 * key would, so a console form and the API call of the same operation are the same call.
 */
export function withStaffScopes(c: OperationContext, roles: readonly StaffRole[]): OperationContext {
  if (!c.principal) return c;
  const scopes = [...new Set([...c.principal.scopes, ...roles.flatMap((r) => ROLE_SCOPES[r])])];
  return { ...c, principal: { ...c.principal, scopes } };
}

/** The staff scopes the caller's roles let their keys carry (on any site: a key is not per site). */
export const keyStaffScopes = (c: OperationContext): Promise<Set<Scope>> => staffScopesOf(c.db, callerId(c));
