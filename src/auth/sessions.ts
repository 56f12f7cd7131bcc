import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../lib/hash.ts';
import type { Db } from '../db/knex.ts';

/** Idle lifetime: a session unused for this long ends. */
export const SESSION_IDLE_MS = 30 * 24 * 3600 * 1000;
/** Absolute lifetime: however active, a session ends this long after sign-in (a stolen cookie does not live forever). */
export const SESSION_ABSOLUTE_MS = 90 * 24 * 3600 * 1000;
/** Expiry is pushed forward at most this often, so reading pages does not write on every request. */
const TOUCH_EVERY_MS = 3600 * 1000;

export interface SessionUser {
  id: number;
  email: string;
  emailVerifiedAt: Date | null;
  createdAt: Date;
}

export interface ActiveSession {
  /** SHA-256 of the cookie value; also what CSRF tokens of this session are bound to. */
  idHash: string;
  user: SessionUser;
  /** Set when the expiry moved forward in this lookup: the cookie should be re-sent. */
  renewed: boolean;
  /** When the session ends unless used again (never after its absolute lifetime). */
  expiresAt: Date;
}

export const hashSessionId = (id: string) => sha256Hex(id);

/** Starts a session; returns the cookie value (never stored) and its hash. */
export async function createSession(db: Db, userId: number): Promise<{ id: string; idHash: string }> {
  const id = randomBytes(32).toString('base64url');
  const idHash = hashSessionId(id);
  await db('web_sessions').insert({ id_hash: idHash, user_id: userId, expires_at: new Date(Date.now() + SESSION_IDLE_MS) });
  // Expired sessions of this user go now; nothing else needs to sweep them.
  await db('web_sessions')
    .where({ user_id: userId })
    .where((q) => q.where('expires_at', '<', db.fn.now()).orWhere('created_at', '<', new Date(Date.now() - SESSION_ABSOLUTE_MS)))
    .delete();
  return { id, idHash };
}

/** The live session named by a cookie value, or null; slides the idle expiry forward. */
export async function findSession(db: Db, id: string | undefined): Promise<ActiveSession | null> {
  if (!id || id.length > 100) return null;
  const idHash = hashSessionId(id);
  const row = await db('web_sessions as s')
    .join('users as u', 'u.id', 's.user_id')
    .where('s.id_hash', idHash)
    .where('s.expires_at', '>', db.fn.now())
    .where('s.created_at', '>', new Date(Date.now() - SESSION_ABSOLUTE_MS))
    .first(
      's.last_seen_at',
      's.expires_at',
      's.created_at as session_created_at',
      'u.id',
      'u.email',
      'u.email_verified_at',
      'u.created_at',
    );
  if (!row) return null;
  const renewed = Date.now() - row.last_seen_at.getTime() > TOUCH_EVERY_MS;
  let expiresAt: Date = row.expires_at;
  if (renewed) {
    // Slides forward by the idle lifetime, but never past the absolute end.
    expiresAt = new Date(Math.min(Date.now() + SESSION_IDLE_MS, row.session_created_at.getTime() + SESSION_ABSOLUTE_MS));
    await db('web_sessions').where({ id_hash: idHash }).update({ last_seen_at: db.fn.now(), expires_at: expiresAt });
  }
  const user = { id: row.id, email: row.email, emailVerifiedAt: row.email_verified_at, createdAt: row.created_at };
  return { idHash, user, renewed, expiresAt };
}

export async function endSession(db: Db, idHash: string): Promise<void> {
  await db('web_sessions').where({ id_hash: idHash }).delete();
}

/** Ends every session of a user (password reset), except the one given. */
export async function endUserSessions(db: Db, userId: number, exceptIdHash?: string): Promise<void> {
  const query = db('web_sessions').where({ user_id: userId });
  if (exceptIdHash) query.whereNot({ id_hash: exceptIdHash });
  await query.delete();
}
