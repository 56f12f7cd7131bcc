import { hash, verify } from '@node-rs/argon2';
import { z } from 'zod';

export const PASSWORD_MIN_LENGTH = 10;
/** Bounds the hashing work one request can ask for. */
export const PASSWORD_MAX_LENGTH = 1000;

export const PasswordSchema = z
  .string({ error: 'Enter a password.' })
  .min(PASSWORD_MIN_LENGTH, `Use at least ${PASSWORD_MIN_LENGTH} characters.`)
  .max(PASSWORD_MAX_LENGTH, `Use at most ${PASSWORD_MAX_LENGTH} characters.`);

/** argon2id (the library default) with its default costs: 19 MiB, 2 passes, 1 lane (OWASP minimum). */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

// Checked when the email is unknown, so a wrong email costs the same time as a wrong password.
let dummyHash: Promise<string> | null = null;

/** True when the password matches; a null hash (no password set) never matches but costs the same. */
export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  if (password.length > PASSWORD_MAX_LENGTH) return false;
  if (!passwordHash) {
    dummyHash ??= hashPassword('not the password of anyone');
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}
