import { z } from 'zod';
import type { StaffActor } from '../domain/staff/access.ts';
import { grant, revoke, rolesOf, STAFF_ROLES } from '../domain/staff/roles.ts';
import { accountByEmail, isAllSitesAdmin, refuseLastAdmin, roleNamed, siteStaff } from '../domain/staff/site-staff.ts';
import { forbidden } from '../errors/errors.ts';
import { defineOperation, type OperationContext } from './operation.ts';
import { asStaff, audit, STAFF_ERROR_CODES } from './staff.ts';

const StaffMember = z.object({
  user_id: z.int(),
  email: z.string(),
  role: z.enum(STAFF_ROLES),
  all_sites: z.boolean().describe('Held on every site (true) or on this site only'),
  granted_at: z.string(),
  granted_by_email: z.string().nullable().describe('Null: given from the admin command line'),
});

export const staffListRolesOp = defineOperation({
  name: 'staff_list_roles',
  summary: 'Site team: who holds which staff role on this site',
  description:
    'Every live staff role that counts on this site, given for this site or for every site, by email: the role, when and by whom ' +
    'it was given. Admins only; the read is recorded in the staff audit log.',
  method: 'GET',
  path: '/staff/roles',
  scope: 'staff:roles',
  idempotent: false,
  readOnly: true,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({}),
  output: z.object({ items: z.array(StaffMember) }),
  async handler(input, ctx) {
    const actor = await asStaff(ctx, ['admin']);
    const rows = await siteStaff(ctx.db, ctx.site.id);
    await audit(ctx, actor, { operation: 'staff_list_roles', input, after: { found: rows.length } });
    return { items: rows.map((r) => ({ ...r, granted_at: r.granted_at.toISOString() })) };
  },
});

const Change = z.object({
  email: z.string().trim().min(1).max(254).describe('The account’s email (any case); the person signs up first'),
  role: z
    .string()
    .trim()
    .min(1)
    .max(40)
    .describe(`One of ${STAFF_ROLES.join(', ')}`),
  all_sites: z.boolean().default(false).describe('On every site (only an admin of every site may) instead of this site'),
});

const ChangeResult = z.object({
  email: z.string(),
  role: z.enum(STAFF_ROLES),
  all_sites: z.boolean(),
  changed: z.boolean().describe('False when the role was already held (grant) or not held (revoke): nothing changed'),
  roles: z.array(z.object({ role: z.enum(STAFF_ROLES), all_sites: z.boolean() })).describe('The person’s roles on this site afterwards'),
});

type ChangeInput = z.output<typeof Change>;

export const staffGrantRoleOp = defineOperation({
  name: 'staff_grant_role',
  summary: 'Site team: give a staff role',
  description:
    'Gives an existing account a staff role on this site, or on every site (`all_sites`: only an admin of every site may). ' +
    'A role already held stays as it was. Admins only; recorded in the staff audit log with the person’s roles before and after. ' +
    'The console asks for a recent second factor first.',
  method: 'POST',
  path: '/staff/roles/grant',
  scope: 'staff:roles',
  idempotent: true,
  readOnly: false,
  errorCodes: [...STAFF_ERROR_CODES, 'unknown_role'],
  tags: ['staff'],
  input: Change,
  output: ChangeResult,
  handler: (input, ctx) => changeRole('staff_grant_role', input, ctx),
});

export const staffRevokeRoleOp = defineOperation({
  name: 'staff_revoke_role',
  summary: 'Site team: take back a staff role',
  description:
    'Takes back a role held on this site, or on every site (`all_sites`: only an admin of every site may). It stops at once: the ' +
    'person’s console pages and keys are refused from the next request. An admin cannot give up the admin role when no one else ' +
    'would be admin (409 `last_admin`). Admins only; recorded in the staff audit log with the roles before and after.',
  method: 'POST',
  path: '/staff/roles/revoke',
  scope: 'staff:roles',
  idempotent: true,
  readOnly: false,
  destructive: true,
  errorCodes: [...STAFF_ERROR_CODES, 'unknown_role', 'last_admin'],
  tags: ['staff'],
  input: Change,
  output: ChangeResult,
  handler: (input, ctx) => changeRole('staff_revoke_role', input, ctx),
});

async function changeRole(operation: 'staff_grant_role' | 'staff_revoke_role', input: ChangeInput, ctx: OperationContext) {
  const actor = await asStaff(ctx, ['admin']);
  const role = roleNamed(input.role);
  const user = await accountByEmail(ctx.db, input.email);
  await refuseEverySite(ctx, actor, input.all_sites);
  const change = { userId: user.id, role, siteId: input.all_sites ? null : ctx.site.id, by: actor.userId, now: ctx.clock.now() };
  const changed = await ctx.db.transaction(async (trx) => {
    const before = await rolesHere(trx, user.id, ctx.site.id);
    if (operation === 'staff_revoke_role') await refuseLastAdmin(trx, actor.userId, change);
    const done = operation === 'staff_grant_role' ? await grant(trx, change) : await revoke(trx, change);
    const after = await rolesHere(trx, user.id, ctx.site.id);
    const logged = { email: user.email, role, all_sites: input.all_sites };
    if (done) await audit(ctx, actor, { operation, input: logged, target: { kind: 'user', id: user.id }, before, after }, trx);
    return done;
  });
  return { email: user.email, role, all_sites: input.all_sites, changed, roles: await rolesHere(ctx.db, user.id, ctx.site.id) };
}

/** A role on every site is given and taken back only by an admin of every site. */
async function refuseEverySite(ctx: OperationContext, actor: StaffActor, allSites: boolean): Promise<void> {
  if (allSites && !(await isAllSitesAdmin(ctx.db, actor.userId))) {
    throw forbidden('staff_role_required', 'Only an admin of every site can give or take back a role on every site.');
  }
}

const rolesHere = async (db: OperationContext['db'], userId: number, siteId: number) =>
  (await rolesOf(db, userId))
    .filter((g) => g.siteId === null || g.siteId === siteId)
    .map((g) => ({ role: g.role, all_sites: g.siteId === null }));

export const staffRoleOperations = [staffListRolesOp, staffGrantRoleOp, staffRevokeRoleOp] as const;
