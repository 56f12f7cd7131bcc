import { requireStaff } from '../../domain/staff/access.ts';
import { rolesOf, STAFF_ROLES, type StaffRole } from '../../domain/staff/roles.ts';
import { callerId, type OperationContext } from '../operation.ts';

/**
 * The signed-in person's staff roles on this site, for the console's gate and its home page: the
 * same refusals as every staff operation (no role: 403; staff of other sites only: 404). Reading
 * one's own roles changes nothing and is not an action on the site, so it writes no audit row.
 */
export async function staffRolesHere(c: OperationContext): Promise<StaffRole[]> {
  const userId = callerId(c);
  await requireStaff(c.db, userId, c.site.id, STAFF_ROLES);
  const here = (await rolesOf(c.db, userId)).filter((g) => g.siteId === null || g.siteId === c.site.id);
  return STAFF_ROLES.filter((r) => here.some((g) => g.role === r));
}
