import { hashPassword } from '../../auth/passwords.ts';
import type { Db } from '../../db/knex.ts';
import { reauthenticate } from './reauth.ts';
import { endOtherSessions } from './sessions.ts';

export interface PasswordChange {
  userId: number;
  currentPassword: string | undefined;
  newPassword: string;
  sessionIdHash: string | null;
  now: Date;
}

/**
 * Sets a new password after the current one (or a sign-in within the last minutes) proves the
 * person; every other session is signed out, so a stolen session ends with the old password.
 * Returns how many sessions ended.
 */
export async function changePassword(db: Db, c: PasswordChange): Promise<number> {
  await reauthenticate(db, {
    userId: c.userId,
    password: c.currentPassword,
    sessionIdHash: c.sessionIdHash,
    now: c.now,
    recentSignInServes: 'always',
  });
  const hash = await hashPassword(c.newPassword);
  return db.transaction(async (trx) => {
    await trx('users').where({ id: c.userId }).update({ password_hash: hash, updated_at: c.now });
    // A reset link asked for before the change must not set another password afterwards.
    await trx('account_tokens').where({ user_id: c.userId, purpose: 'reset_password' }).whereNull('used_at').update({ used_at: c.now });
    return endOtherSessions(trx, c.userId, c.sessionIdHash);
  });
}
