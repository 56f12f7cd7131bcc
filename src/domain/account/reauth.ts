import { verifyPassword } from '../../auth/passwords.ts';
import type { Db } from '../../db/knex.ts';
import { forbidden } from '../../errors/errors.ts';

/** How long after signing in a session counts as a fresh sign-in, in place of the password. */
export const RECENT_SIGN_IN_MS = 10 * 60 * 1000;

export interface Reauthentication {
  userId: number;
  /** The password the person typed again, if any. */
  password: string | undefined;
  /** The web session asking (its id hash), or null for an API key or OAuth token. */
  sessionIdHash: string | null;
  now: Date;
  /** Whether a fresh sign-in stands in for the password when the account has one. */
  recentSignInServes: 'always' | 'without-password';
}

/**
 * Proves the person at the keyboard is the account's: the current password, or a sign-in within
 * RECENT_SIGN_IN_MS (the only proof an account without a password can give). 403 wrong_password
 * or reauthentication_required, in words, otherwise.
 */
export async function reauthenticate(db: Db, r: Reauthentication): Promise<void> {
  const user = await db('users').where({ id: r.userId }).first('password_hash');
  const hasPassword = Boolean(user?.password_hash);
  if (r.password !== undefined && r.password !== '') {
    if (await verifyPassword(user?.password_hash ?? null, r.password)) return;
    throw forbidden('wrong_password', 'The current password is not right.');
  }
  if ((!hasPassword || r.recentSignInServes === 'always') && (await signedInRecently(db, r))) return;
  throw forbidden(
    'reauthentication_required',
    hasPassword
      ? 'Give your current password (current_password) to do this.'
      : `Sign in again (within ${RECENT_SIGN_IN_MS / 60_000} minutes) to do this: your account has no password.`,
  );
}

async function signedInRecently(db: Db, r: Reauthentication): Promise<boolean> {
  if (!r.sessionIdHash) return false;
  const row = await db('web_sessions').where({ id_hash: r.sessionIdHash, user_id: r.userId }).first('created_at');
  return Boolean(row && r.now.getTime() - row.created_at.getTime() <= RECENT_SIGN_IN_MS);
}
