import type { Middleware } from 'koa';
import compose from 'koa-compose';
import { AppError, forbidden } from '../../../errors/errors.ts';
import { STAFF_ROLES, staffRolesHere, withStaffScopes, type StaffRole } from '../../../operations/read-models/staff.ts';
import { pageContext } from '../../invoke.ts';
import { requireUser } from '../../session.ts';
import { requireStaffFactor } from '../../staff-factor.ts';
import type { WebServices } from '../../web-services.ts';

declare module 'koa' {
  interface DefaultState {
    /** The staff roles of the signed-in person on this site (set by requireStaff). */
    staffRoles?: StaffRole[];
  }
}

/**
 * The one gate of every console page: signed in (else the sign-in page), holding a staff role on
 * this site (none: a 403 page; staff of other sites only: a 404 page), with a second factor
 * verified in this session (else the factor page, then back), so no console page can be reached
 * without it. Money actions add requireRecentFactor on their own routes. Each operation a page calls
 * checks the role it needs again; this gate only keeps everyone else out of the console.
 */
export function requireStaff(services: WebServices, area: readonly StaffRole[] = STAFF_ROLES): Middleware {
  return compose([requireUser(services), checkStaffRole(services, area), requireStaffFactor(services)]);
}

const ROLE_WORDS: Record<StaffRole, string> = { admin: 'admins', support: 'support', moderator: 'moderators' };

/** `area`: the roles a page is for; staff with none of them get a 403 page saying whose it is. */
function checkStaffRole(services: WebServices, area: readonly StaffRole[]): Middleware {
  return async function staffOnly(ctx, next) {
    // Console pages hold buyers' data: never kept by a browser or a cache in between.
    ctx.set('Cache-Control', 'no-store, private');
    const c = await pageContext(ctx, services);
    const roles = await staffRolesHere(c).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'staff_role_required') {
        throw forbidden('staff_role_required', 'These pages are for the site team, and your account has no staff role here.');
      }
      throw err;
    });
    if (!roles.some((r) => area.includes(r))) {
      const names = (rs: readonly StaffRole[]) => rs.map((r) => ROLE_WORDS[r]).join(' or ');
      throw forbidden('staff_role_required', `This part of the console is for ${names(area)}; your role here is ${names(roles)}.`);
    }
    ctx.state.staffRoles = roles;
    // The operations the console's pages invoke run with this context (src/web/invoke.ts).
    ctx.state.pageContext = Promise.resolve(withStaffScopes(c, roles));
    return next();
  };
}

/** The roles requireStaff found (empty outside its routes). */
export const staffRoles = (state: { staffRoles?: StaffRole[] }): StaffRole[] => state.staffRoles ?? [];
