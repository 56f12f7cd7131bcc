import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/knex.ts';
import { sha256Hex } from '../../lib/hash.ts';
import type { SignInAttemptTableRow, SignInProvider } from './tables.ts';

/** How long a person has at the provider before the attempt ends (long enough to sign in there, with a second factor). */
export const ATTEMPT_LIFETIME_MS = 10 * 60 * 1000;

export interface AttemptSecrets {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/**
 * Records an attempt: the PKCE verifier, state and nonce stay here; the browser gets only a
 * random id (its cookie), so the callback works only in the browser that started it.
 */
export async function recordAttempt(
  db: Db,
  now: Date,
  attempt: AttemptSecrets & { provider: SignInProvider; linkUserId: number | null; returnTo: string },
): Promise<string> {
  const cookieId = randomBytes(32).toString('base64url');
  await db('sign_in_attempts').insert({
    id_hash: sha256Hex(cookieId),
    provider: attempt.provider,
    state: attempt.state,
    nonce: attempt.nonce,
    code_verifier: attempt.codeVerifier,
    link_user_id: attempt.linkUserId,
    return_to: attempt.returnTo,
    created_at: now,
    expires_at: new Date(now.getTime() + ATTEMPT_LIFETIME_MS),
  });
  // Attempts nobody finished go with the next one; nothing else needs to sweep them.
  await db('sign_in_attempts')
    .where('expires_at', '<', new Date(now.getTime() - ATTEMPT_LIFETIME_MS))
    .delete();
  return cookieId;
}

export type TakenAttempt =
  | { ok: true; attempt: SignInAttemptTableRow }
  | { ok: false; reason: 'missing' | 'wrong_state' | 'used' | 'expired' };

/**
 * Uses an attempt up, once: of two callbacks with its state (a replayed one) only the first gets
 * it. A callback whose state is not the attempt's leaves the attempt as it was.
 */
export async function takeAttempt(
  db: Db,
  now: Date,
  cookieId: string | undefined,
  provider: SignInProvider,
  state: string,
): Promise<TakenAttempt> {
  if (!cookieId) return { ok: false, reason: 'missing' };
  const idHash = sha256Hex(cookieId);
  const [taken] = await db('sign_in_attempts')
    .where({ id_hash: idHash, provider, state })
    .whereNull('used_at')
    .where('expires_at', '>', now)
    .update({ used_at: now })
    .returning('*');
  if (taken) return { ok: true, attempt: taken };
  const row = await db('sign_in_attempts').where({ id_hash: idHash, provider }).first();
  if (!row) return { ok: false, reason: 'missing' };
  if (row.state !== state) return { ok: false, reason: 'wrong_state' };
  return { ok: false, reason: row.used_at ? 'used' : 'expired' };
}
