import { z } from 'zod';
import type { Db } from '../db/knex.ts';
import { factorCounts, removeFactors, type FactorCounts } from '../domain/staff/factor-reset.ts';
import { conflict, notFound } from '../errors/errors.ts';
import { defineOperation, type OperationContext } from './operation.ts';
import { asStaff, audit, STAFF_ERROR_CODES } from './staff.ts';

const Counts = z.object({
  totp: z.int().describe('1 when an authenticator app is set up'),
  recovery_codes: z.int().describe('Recovery codes not used yet'),
  passkeys: z.int(),
  verified_sessions: z.int().describe('Web sessions of the person verified with a factor'),
});

/** A person holding a live staff role on this site (or on every site); else 404, as for staff of other sites. */
async function staffMemberHere(db: Db, userId: number, siteId: number): Promise<{ id: number; email: string }> {
  const person = await db('users as u')
    .where('u.id', userId)
    .whereExists((q) =>
      q
        .select(db.raw('1'))
        .from('staff_roles as r')
        .whereRaw('r.user_id = u.id')
        .whereNull('r.revoked_at')
        .where((s) => s.whereNull('r.site_id').orWhere('r.site_id', siteId)),
    )
    .first('u.id', 'u.email');
  if (!person) throw notFound('This member of the site team');
  return person;
}

/** The audit redacts every field named like a password (`pass…`), so passkeys are counted under another name there. */
const forAudit = ({ passkeys, ...rest }: FactorCounts) => ({ ...rest, webauthn_credentials: passkeys });

export const staffResetSecondFactorOp = defineOperation({
  name: 'staff_reset_second_factor',
  summary: 'Site team: reset a staff member’s second factor',
  description:
    'Removes every second factor of a member of this site’s team (authenticator app, recovery codes, passkeys) and ' +
    'un-verifies their sessions: the console asks them to set up a factor again before it opens. For a lost phone ' +
    'or key. The audit log keeps the counts before and after, never a secret. Admins only; not for your own factor.',
  method: 'POST',
  path: '/staff/people/{user_id}/second-factor/reset',
  scope: 'staff:roles',
  idempotent: false,
  readOnly: false,
  destructive: true,
  errorCodes: [...STAFF_ERROR_CODES, 'own_second_factor'],
  tags: ['staff'],
  input: z.object({
    user_id: z.coerce.number().int().min(1).max(2_147_483_647).describe('The staff member’s account id'),
    reason: z.string().trim().max(500).optional().describe('Why, for the staff audit log'),
  }),
  output: z.object({ user_id: z.int(), email: z.string(), before: Counts, after: Counts }),
  async handler(input, ctx) {
    const actor = await asStaff(ctx, ['admin']);
    if (actor.userId === input.user_id) {
      throw conflict(
        'own_second_factor',
        'You cannot reset your own second factor here; ask another admin, or remove it on your factor page.',
      );
    }
    const person = await staffMemberHere(ctx.db, input.user_id, ctx.site.id);
    return ctx.db.transaction(async (trx) => {
      const before = await factorCounts(trx, person.id);
      await removeFactors(trx, person.id);
      const after = await factorCounts(trx, person.id);
      await audit(
        ctx,
        actor,
        {
          operation: 'staff_reset_second_factor',
          input,
          target: { kind: 'user', id: person.id },
          before: forAudit(before),
          after: forAudit(after),
        },
        trx,
      );
      return { user_id: person.id, email: person.email, before, after };
    });
  },
});

/** For the console's page: the person and their factor counts, admins only (not audited: counts, nothing secret). */
export async function staffFactorSummary(ctx: OperationContext, userId: number) {
  await asStaff(ctx, ['admin']);
  const person = await staffMemberHere(ctx.db, userId, ctx.site.id);
  return { ...person, counts: await factorCounts(ctx.db, person.id) };
}

export const staffFactorOperations = [staffResetSecondFactorOp];
