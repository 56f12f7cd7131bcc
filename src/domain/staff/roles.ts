import type { Db } from '../../db/knex.ts';
import { STAFF_SCOPES, type Scope } from '../../auth/scopes.ts';
import { badRequest, forbidden } from '../../errors/errors.ts';

/**
 * Staff roles: who on the site team may do what, on one site or on all of them. A role is given
 * to an existing account and revoked by stamping `revoked_at`, so the table keeps who held what
 * when (the audit log says what they did with it).
 */
export const STAFF_ROLES = ['admin', 'support', 'moderator'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/** The staff scopes a key may carry per role: what the role's operations need, nothing more. */
export const ROLE_SCOPES: Record<StaffRole, readonly Scope[]> = {
  admin: STAFF_SCOPES,
  support: ['staff:orders', 'staff:claims', 'staff:flows', 'staff:webhooks'],
  moderator: ['staff:listings'],
};

/** One live role of a person: `siteId` null means every site. */
export interface StaffRoleGrant {
  role: StaffRole;
  siteId: number | null;
  grantedAt: Date;
  grantedBy: number | null;
}

export function staffRole(value: string): StaffRole {
  if (!(STAFF_ROLES as readonly string[]).includes(value)) {
    throw badRequest('usage', `Unknown role "${value}". Roles: ${STAFF_ROLES.join(', ')}.`);
  }
  return value as StaffRole;
}

export interface RoleChange {
  userId: number;
  role: StaffRole;
  /** Null: every site. */
  siteId: number | null;
  /** Who grants or revokes; null for the admin command line. */
  by: number | null;
  now: Date;
}

/** Gives a role; a role already held (same site) stays as it was. Returns whether it is new. */
export async function grant(db: Db, change: RoleChange): Promise<boolean> {
  const rows = await db('staff_roles')
    .insert({ user_id: change.userId, role: change.role, site_id: change.siteId, granted_by: change.by, granted_at: change.now })
    .onConflict(db.raw('(user_id, role, coalesce(site_id, 0)) WHERE revoked_at IS NULL'))
    .ignore()
    .returning('id');
  return rows.length === 1;
}

/** Takes a role back (at once: every staff operation checks the role). Returns whether it was held. */
export async function revoke(db: Db, change: RoleChange): Promise<boolean> {
  const q = db('staff_roles').where({ user_id: change.userId, role: change.role }).whereNull('revoked_at');
  if (change.siteId === null) q.whereNull('site_id');
  else q.where({ site_id: change.siteId });
  return (await q.update({ revoked_at: change.now, revoked_by: change.by })) > 0;
}

/** The live roles of a person, oldest first. */
export async function rolesOf(db: Db, userId: number): Promise<StaffRoleGrant[]> {
  const rows = await db('staff_roles')
    .where({ user_id: userId })
    .whereNull('revoked_at')
    .orderBy('id')
    .select('role', 'site_id', 'granted_at', 'granted_by');
  return rows.map((r) => ({ role: r.role as StaffRole, siteId: r.site_id, grantedAt: r.granted_at, grantedBy: r.granted_by }));
}

/** The staff scopes a person's live roles allow on any site. */
export async function staffScopesOf(db: Db, userId: number): Promise<Set<Scope>> {
  return new Set((await rolesOf(db, userId)).flatMap((g) => ROLE_SCOPES[g.role]));
}

/** Refuses staff scopes the person's roles do not allow: a key never carries more than its person may do. */
export async function checkStaffScopes(db: Db, userId: number, scopes: readonly Scope[]): Promise<void> {
  const wanted = scopes.filter((s) => (STAFF_SCOPES as readonly Scope[]).includes(s));
  if (!wanted.length) return;
  const allowed = await staffScopesOf(db, userId);
  const refused = wanted.filter((s) => !allowed.has(s));
  if (refused.length) {
    throw forbidden('staff_role_required', `The scope(s) ${refused.join(', ')} need a staff role that allows them.`);
  }
}
