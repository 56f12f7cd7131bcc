import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../lib/hash.ts';
import type { Db } from '../db/knex.ts';

export type TokenPurpose = 'verify_email' | 'reset_password';

export const TOKEN_LIFETIME_MS: Record<TokenPurpose, number> = {
  verify_email: 24 * 3600 * 1000,
  reset_password: 3600 * 1000,
};

/** At most this many links of one purpose per user per window: the forms cannot be used to flood a mailbox. */
const MAX_PER_WINDOW = 3;
export const ACCOUNT_TOKEN_WINDOW_MS = 15 * 60 * 1000;

const hashToken = (token: string) => sha256Hex(token);

/**
 * Issues a single-use link token (stored hashed). Returns null when the user already received
 * MAX_PER_WINDOW of them recently: the caller then sends nothing and says nothing different.
 */
export async function issueToken(db: Db, userId: number, purpose: TokenPurpose): Promise<string | null> {
  const [{ count }] = await db('account_tokens')
    .where({ user_id: userId, purpose })
    .where('created_at', '>', new Date(Date.now() - ACCOUNT_TOKEN_WINDOW_MS))
    .count({ count: '*' });
  if (Number(count) >= MAX_PER_WINDOW) return null;
  const token = randomBytes(32).toString('base64url');
  await db('account_tokens').insert({
    user_id: userId,
    purpose,
    token_hash: hashToken(token),
    expires_at: new Date(Date.now() + TOKEN_LIFETIME_MS[purpose]),
  });
  return token;
}

/** The user a live, unused token belongs to, without using it up (the reset form is shown first). */
export async function peekToken(db: Db, token: string, purpose: TokenPurpose): Promise<number | null> {
  if (!token || token.length > 100) return null;
  const row = await db('account_tokens')
    .where({ token_hash: hashToken(token), purpose })
    .whereNull('used_at')
    .where('expires_at', '>', db.fn.now())
    .first('user_id');
  return row?.user_id ?? null;
}

/** Uses a token up atomically: of two concurrent uses exactly one gets the user id. */
export async function consumeToken(db: Db, token: string, purpose: TokenPurpose): Promise<number | null> {
  if (!token || token.length > 100) return null;
  const rows = await db('account_tokens')
    .where({ token_hash: hashToken(token), purpose })
    .whereNull('used_at')
    .where('expires_at', '>', db.fn.now())
    .update({ used_at: db.fn.now() })
    .returning('user_id');
  return rows[0]?.user_id ?? null;
}

/** Voids the user's other unused tokens of a purpose (after a reset, older reset links stop working). */
export async function voidTokens(db: Db, userId: number, purpose: TokenPurpose): Promise<void> {
  await db('account_tokens').where({ user_id: userId, purpose }).whereNull('used_at').update({ used_at: db.fn.now() });
}
