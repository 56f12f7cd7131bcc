import { createCipheriv, createDecipheriv, randomBytes, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { AppSecrets } from '../../auth/secrets.ts';
import type { Db } from '../../db/knex.ts';
import { sha256Hex } from '../../lib/hash.ts';
import { RateLimitedError, takePoints, type RateLimit } from '../quotas/rate-limit.ts';
import { tooManyRequests } from '../../errors/errors.ts';

/**
 * Staff second factors (docs/decisions/staff-second-factor.md): TOTP (RFC 6238, what every
 * authenticator app reads) with ten one-time recovery codes, and the factor a web session was
 * verified with. A verification counts for FACTOR_LIFETIME_MS; money actions want one newer than
 * RECENT_FACTOR_MS.
 */

export type SecondFactor = 'totp' | 'recovery_code' | 'passkey';
export const FACTOR_LIFETIME_MS = 12 * 3600 * 1000;
export const RECENT_FACTOR_MS = 10 * 60 * 1000;
export const RECOVERY_CODE_COUNT = 10;
const ISSUER = 'Listing Directory';
const KEY_NAME = 'staff-totp-secrets';
/** Wrong codes per person: enough for typos, far too few to guess a 6-digit code. */
export const FACTOR_TRIES: RateLimit = { name: 'staff-factor', points: 5, seconds: 15 * 60 };

// The secret is kept encrypted, not hashed: checking a code needs the secret itself.
async function seal(secrets: AppSecrets, text: string): Promise<Buffer> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await secrets.get(KEY_NAME), iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

async function open(secrets: AppSecrets, box: Buffer): Promise<string> {
  const decipher = createDecipheriv('aes-256-gcm', await secrets.get(KEY_NAME), box.subarray(0, 12));
  decipher.setAuthTag(box.subarray(12, 28));
  return Buffer.concat([decipher.update(box.subarray(28)), decipher.final()]).toString('utf8');
}

const totpOf = (secretBase32: string, label: string) =>
  new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secretBase32) });

export interface Enrolment {
  /** Base32, as people type it into an app. */
  secret: string;
  /** The otpauth:// URI the QR code carries. */
  uri: string;
}

/** Has this person confirmed a TOTP factor? */
export async function hasFactor(db: Db, userId: number): Promise<boolean> {
  return Boolean(await db('staff_totp').where({ user_id: userId }).whereNotNull('confirmed_at').first('user_id'));
}

/**
 * The enrolment in progress (the same secret on every reload until it is confirmed), started when
 * there is none; null once a factor is confirmed: its secret is never shown again.
 */
export async function pendingEnrolment(db: Db, secrets: AppSecrets, userId: number, label: string): Promise<Enrolment | null> {
  const row = await db('staff_totp').where({ user_id: userId }).first();
  if (row?.confirmed_at) return null;
  let secret: string;
  if (row) secret = await open(secrets, row.secret_box);
  else {
    secret = new Secret({ size: 20 }).base32;
    await db('staff_totp')
      .insert({ user_id: userId, secret_box: await seal(secrets, secret) })
      .onConflict('user_id')
      .ignore();
    const stored = (await db('staff_totp').where({ user_id: userId }).first())!;
    secret = await open(secrets, stored.secret_box); // a concurrent first view may have won
  }
  return { secret, uri: totpOf(secret, label).toString() };
}

/** Takes a try's point before the code is checked; a right code gives it back. */
async function withTries<T>(db: Db, userId: number, check: () => Promise<T | null>): Promise<T | null> {
  let taken;
  try {
    taken = await takePoints(db, [{ limit: FACTOR_TRIES, key: String(userId) }]);
  } catch (err) {
    if (!(err instanceof RateLimitedError)) throw err;
    throw tooManyRequests('Too many wrong codes. Wait a few minutes, then try again.', err.retryAfterSeconds);
  }
  const result = await check();
  if (result !== null) await taken.giveBack();
  return result;
}

/** Accepts a TOTP code once: its time step must be newer than the last accepted one. */
async function acceptTotp(db: Db, secrets: AppSecrets, userId: number, code: string, now: Date, confirmed: boolean) {
  if (!/^\d{6}$/.test(code)) return null;
  const row = await db('staff_totp').where({ user_id: userId }).first();
  if (!row || Boolean(row.confirmed_at) !== confirmed) return null;
  const timestamp = now.getTime();
  const delta = totpOf(await open(secrets, row.secret_box), '').validate({ token: code, timestamp, window: 1 });
  if (delta === null) return null;
  const step = Math.floor(timestamp / 30_000) + delta;
  const updated = await db('staff_totp')
    .where({ user_id: userId })
    .where((q) => q.whereNull('last_step').orWhere('last_step', '<', step))
    .update({ last_step: step, ...(confirmed ? {} : { confirmed_at: now }) });
  return updated === 1 ? ('totp' as const) : null;
}

/** Confirms the pending enrolment with a code from the app; returns the recovery codes (shown once) or null. */
export async function confirmEnrolment(db: Db, secrets: AppSecrets, userId: number, code: string, now: Date): Promise<string[] | null> {
  const accepted = await withTries(db, userId, () => acceptTotp(db, secrets, userId, code.trim(), now, false));
  if (!accepted) return null;
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await db.transaction(async (trx) => {
    await trx('staff_recovery_codes').where({ user_id: userId }).delete();
    await trx('staff_recovery_codes').insert(codes.map((c) => ({ user_id: userId, code_hash: hashRecoveryCode(c) })));
  });
  return codes;
}

/** Checks a TOTP code or an unused recovery code (which is then used up); the factor, or null. */
export async function verifyFactor(db: Db, secrets: AppSecrets, userId: number, input: string, now: Date): Promise<SecondFactor | null> {
  const code = input.trim();
  return withTries(db, userId, async () => {
    if (/^\d{6}$/.test(code)) return acceptTotp(db, secrets, userId, code, now, true);
    const used = await db('staff_recovery_codes')
      .where({ user_id: userId, code_hash: hashRecoveryCode(code) })
      .whereNull('used_at')
      .update({ used_at: now });
    return used === 1 ? ('recovery_code' as const) : null;
  });
}

const CODE_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
/** 10 characters from 31 (~50 bits), shown as two groups of five. */
function newRecoveryCode(): string {
  const chars = Array.from({ length: 10 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}
// Random codes of ~50 bits: a fast hash is enough (nothing to guess from a dictionary).
const hashRecoveryCode = (code: string) => sha256Hex(code.toLowerCase().replace(/[^a-z0-9]/g, ''));

/** Records that a web session was verified with a factor, now. */
export async function markSessionFactor(db: Db, sessionIdHash: string, factor: SecondFactor, now: Date): Promise<void> {
  await db('web_session_factors')
    .insert({ session_id_hash: sessionIdHash, factor, verified_at: now })
    .onConflict('session_id_hash')
    .merge();
}

export interface SessionFactor {
  factor: SecondFactor;
  verifiedAt: Date;
}

/** The factor a web session was verified with, while it still counts (FACTOR_LIFETIME_MS); else null. */
export async function sessionFactor(db: Db, sessionIdHash: string, now: Date): Promise<SessionFactor | null> {
  const row = await db('web_session_factors').where({ session_id_hash: sessionIdHash }).first();
  if (!row || now.getTime() - row.verified_at.getTime() >= FACTOR_LIFETIME_MS) return null;
  return { factor: row.factor as SecondFactor, verifiedAt: row.verified_at };
}

/** Was the factor verified within RECENT_FACTOR_MS (money actions)? */
export const isRecent = (f: SessionFactor | null, now: Date): boolean =>
  f !== null && now.getTime() - f.verifiedAt.getTime() < RECENT_FACTOR_MS;
