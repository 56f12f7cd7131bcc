import { setTimeout } from 'node:timers/promises';
import type { Db } from '../db/knex.ts';
import { queueMail } from '../mail/outbox.ts';
import { alreadyRegisteredMail, resetPasswordMail, verifyEmailMail } from './account-mails.ts';
import { consumeToken, issueToken, voidTokens } from './account-tokens.ts';
import { revokeUserGrants } from './oauth/grants.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { endUserSessions } from './sessions.ts';
import { beginAttempt, finishAttempt, forgetFailures, type SigninLimits } from './signin-limiter.ts';
import { createUser, type User } from './users.ts';

/**
 * Account flows of people in a browser. Every flow answers the same way whether or not the
 * address has an account (the mails differ, the pages do not), so the forms do not enumerate users.
 */

interface UserRow {
  id: number;
  email: string;
  password_hash: string | null;
  email_verified_at: Date | null;
}

const userRow = (db: Db, email: string): Promise<UserRow | undefined> =>
  db('users').where({ email }).first('id', 'email', 'password_hash', 'email_verified_at');

/**
 * Sign-up: a new address gets an unverified account and a verification link. Signing up again
 * before verifying replaces the password (whoever holds the mailbox decides); a verified address
 * gets a "you already have an account" mail at most once per 15 minutes.
 */
export async function signUp(db: Db, baseUrl: string, email: string, password: string): Promise<void> {
  const passwordHash = await hashPassword(password);
  await db.transaction(async (trx) => {
    const [created] = await trx('users').insert({ email, password_hash: passwordHash }).onConflict('email').ignore().returning('id');
    const user = created ? { id: created.id, email, email_verified_at: null } : (await userRow(trx, email))!;
    if (user.email_verified_at) {
      const bucket = Math.floor(Date.now() / (15 * 60 * 1000));
      await queueMail(trx, alreadyRegisteredMail(baseUrl, user.email, `signup-existing:${user.id}:${bucket}`));
      return;
    }
    if (!created) {
      await trx('users').where({ id: user.id }).update({ password_hash: passwordHash, updated_at: trx.fn.now() });
      await voidTokens(trx, user.id, 'verify_email');
    }
    await sendVerification(trx, baseUrl, user);
  });
}

async function sendVerification(db: Db, baseUrl: string, user: { id: number; email: string }): Promise<void> {
  const token = await issueToken(db, user.id, 'verify_email');
  if (token) await queueMail(db, verifyEmailMail(baseUrl, user.email, token));
}

/** Uses a verification link; false when it is unknown, used or expired. */
export async function verifyEmail(db: Db, token: string): Promise<boolean> {
  return db.transaction(async (trx) => {
    const userId = await consumeToken(trx, token, 'verify_email');
    if (!userId) return false;
    await trx('users')
      .where({ id: userId })
      .update({ email_verified_at: trx.raw('coalesce(email_verified_at, now())'), updated_at: trx.fn.now() });
    return true;
  });
}

export type SignInResult =
  | { outcome: 'signed_in'; userId: number }
  | { outcome: 'invalid' }
  | { outcome: 'unverified' }
  | { outcome: 'rate_limited'; retryAfterSeconds: number };

/**
 * Checks a password under the attempt limits. Signing in needs a verified address: with the
 * right password on an unverified account a fresh verification link is sent instead.
 */
export async function signIn(
  db: Db,
  baseUrl: string,
  limits: SigninLimits,
  attempt: { email: string; password: string; ip: string },
): Promise<SignInResult> {
  const started = await beginAttempt(db, limits, attempt.email, attempt.ip);
  if (!started.ok) return { outcome: 'rate_limited', retryAfterSeconds: started.retryAfterSeconds };
  if (started.delayMs > 0) await setTimeout(started.delayMs);
  const user = await userRow(db, attempt.email);
  const ok = await verifyPassword(user?.password_hash ?? null, attempt.password);
  await finishAttempt(db, limits, started.attempt, ok ? 'success' : 'failure');
  if (!ok || !user) return { outcome: 'invalid' };
  if (!user.email_verified_at) {
    await sendVerification(db, baseUrl, user);
    return { outcome: 'unverified' };
  }
  return { outcome: 'signed_in', userId: user.id };
}

/**
 * How long a reset request takes at least, known address or not: the lookup, the token and the
 * queued mail of a known address happen within it, so the answer's timing does not tell whether
 * the address has an account.
 */
export const RESET_REQUEST_MIN_MS = 300;

/** Sends a reset link when the address has an account; silently nothing otherwise; in constant time. */
export async function requestPasswordReset(db: Db, baseUrl: string, email: string): Promise<void> {
  const floor = setTimeout(RESET_REQUEST_MIN_MS);
  await sendResetLink(db, baseUrl, email);
  await floor;
}

async function sendResetLink(db: Db, baseUrl: string, email: string): Promise<void> {
  const user = await userRow(db, email);
  if (!user) return;
  const token = await issueToken(db, user.id, 'reset_password');
  if (token) await queueMail(db, resetPasswordMail(baseUrl, user.email, token));
}

/**
 * Uses a reset link: sets the password, ends every session and OAuth grant of the account (API
 * keys stay), voids other reset links and forgets failed sign-ins. Opening the link proves the mailbox, so it verifies the
 * address too. Returns the user id, or null when the link is unknown, used or expired.
 */
export async function resetPassword(db: Db, token: string, password: string): Promise<number | null> {
  const passwordHash = await hashPassword(password);
  return db.transaction(async (trx) => {
    const userId = await consumeToken(trx, token, 'reset_password');
    if (!userId) return null;
    const [user] = await trx('users')
      .where({ id: userId })
      .update({
        password_hash: passwordHash,
        email_verified_at: trx.raw('coalesce(email_verified_at, now())'),
        updated_at: trx.fn.now(),
      })
      .returning(['id', 'email']);
    await voidTokens(trx, userId, 'reset_password');
    await endUserSessions(trx, userId);
    await revokeUserGrants(trx, userId);
    await forgetFailures(trx, user.email);
    return userId;
  });
}

/** An account that can sign in at once (admin CLI): verified, with the given password. */
export async function createVerifiedUser(db: Db, email: string, password: string): Promise<User> {
  const passwordHash = await hashPassword(password);
  return db.transaction(async (trx) => {
    const user = await createUser(trx, email);
    await trx('users').where({ id: user.id }).update({ password_hash: passwordHash, email_verified_at: trx.fn.now() });
    return user;
  });
}
