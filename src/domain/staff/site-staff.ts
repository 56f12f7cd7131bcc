import type { Db } from '../../db/knex.ts';
import { appError, conflict, unprocessable } from '../../errors/errors.ts';
import { rolesOf, STAFF_ROLES, type StaffRole } from './roles.ts';

/**
 * The site team as admins manage it from the console: who holds which role here, and the rules of
 * giving and taking back (src/operations/staff-roles.ts applies them, audited).
 */

/** One live role held on a site: given for that site, or for every site. */
export interface SiteStaffRow {
  user_id: number;
  email: string;
  role: StaffRole;
  all_sites: boolean;
  granted_at: Date;
  /** Null: the admin command line. */
  granted_by_email: string | null;
}

/** The live roles that count on `siteId`, by email then role. */
export async function siteStaff(db: Db, siteId: number): Promise<SiteStaffRow[]> {
  const rows = await db('staff_roles as r')
    .join('users as u', 'u.id', 'r.user_id')
    .leftJoin('users as g', 'g.id', 'r.granted_by')
    .whereNull('r.revoked_at')
    .where((q) => q.where('r.site_id', siteId).orWhereNull('r.site_id'))
    .orderBy('u.email')
    .orderBy('r.role')
    .orderBy('r.id')
    .select('r.user_id', 'u.email', 'r.role', 'r.site_id', 'r.granted_at', 'g.email as granted_by_email');
  return rows.map((r) => ({
    user_id: r.user_id,
    email: r.email,
    role: r.role as StaffRole,
    all_sites: r.site_id === null,
    granted_at: r.granted_at,
    granted_by_email: r.granted_by_email ?? null,
  }));
}

/** A role by its name; an unknown one is refused (422) naming the roles there are. */
export function roleNamed(value: string): StaffRole {
  if (!(STAFF_ROLES as readonly string[]).includes(value)) {
    throw unprocessable('unknown_role', `Unknown role "${value}". Roles: ${STAFF_ROLES.join(', ')}.`);
  }
  return value as StaffRole;
}

/** The account with this email (any case); none is a 404 saying the person signs up first. */
export async function accountByEmail(db: Db, email: string): Promise<{ id: number; email: string }> {
  const user = await db('users').whereRaw('lower(email) = lower(?)', [email.trim()]).first('id', 'email');
  if (!user) throw appError('not_found', `No account has the email ${email.trim()}: the person signs up first, then gets a role.`);
  return user;
}

/** Whether the person holds `admin` for every site (the command line, with no account, does). */
export async function isAllSitesAdmin(db: Db, userId: number | null): Promise<boolean> {
  if (userId === null) return true;
  return (await rolesOf(db, userId)).some((g) => g.role === 'admin' && g.siteId === null);
}

/**
 * Refuses (409) an admin taking back their own admin role when no one else would be admin where
 * it counted: a site must keep an admin to manage its team. Call it in the revoke's transaction;
 * the admin rows are locked so two such revokes at once cannot both pass.
 */
export async function refuseLastAdmin(trx: Db, actorId: number | null, change: { userId: number; role: StaffRole; siteId: number | null }) {
  if (change.role !== 'admin' || actorId !== change.userId) return;
  const others = await trx('staff_roles')
    .whereNull('revoked_at')
    .where({ role: 'admin' })
    .whereNot({ user_id: change.userId })
    .where((q) => (change.siteId === null ? q.whereNull('site_id') : q.where('site_id', change.siteId).orWhereNull('site_id')))
    .forUpdate()
    .select('id');
  if (others.length === 0) {
    const where = change.siteId === null ? 'every site' : 'this site';
    throw conflict('last_admin', `You are the last admin of ${where}: give the role to someone else before you give it up.`);
  }
}
