import type { Db } from '../../db/knex.ts';

/**
 * Taking a person's second factors away: their TOTP key, recovery codes and passkeys go, and no
 * session of theirs counts as verified any more, so the console asks them to enrol again.
 * Counts only ever leave this module: never a secret, a code or a key.
 */

export interface FactorCounts {
  /** 1 when a TOTP key is confirmed (0 also while an enrolment is pending). */
  totp: number;
  /** Recovery codes not used yet. */
  recovery_codes: number;
  passkeys: number;
  /** Web sessions of the person verified with a factor now. */
  verified_sessions: number;
}

const count = async (q: Promise<Array<Record<string, unknown>>>) => Number((await q)[0]?.n ?? 0);

export async function factorCounts(db: Db, userId: number): Promise<FactorCounts> {
  const [totp, recovery_codes, passkeys, verified_sessions] = await Promise.all([
    count(db('staff_totp').where({ user_id: userId }).whereNotNull('confirmed_at').count({ n: '*' })),
    count(db('staff_recovery_codes').where({ user_id: userId }).whereNull('used_at').count({ n: '*' })),
    count(db('staff_passkeys').where({ user_id: userId }).count({ n: '*' })),
    count(
      db('web_session_factors as f')
        .join('web_sessions as s', 's.id_hash', 'f.session_id_hash')
        .where('s.user_id', userId)
        .count({ n: '*' }),
    ),
  ]);
  return { totp, recovery_codes, passkeys, verified_sessions };
}

/** Removes every second factor of a person (in `db`, the transaction of the audit row). */
export async function removeFactors(db: Db, userId: number): Promise<void> {
  await db('staff_totp').where({ user_id: userId }).delete();
  await db('staff_recovery_codes').where({ user_id: userId }).delete();
  await db('staff_passkeys').where({ user_id: userId }).delete();
  const sessions = db('web_sessions').where({ user_id: userId }).select('id_hash');
  await db('web_session_factors').whereIn('session_id_hash', sessions).delete();
  await db('staff_webauthn_challenges').whereIn('session_id_hash', sessions).delete();
}
