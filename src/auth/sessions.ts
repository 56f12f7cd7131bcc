import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../lib/hash.ts';
import type { Db } from '../db/knex.ts';
import type { PeopleCache } from '../cache/people-cache.ts';

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

/** How long a session lives: unused (idle), and at most after sign-in (absolute). */
export interface SessionLifetimes {
  idleMs: number;
  absoluteMs: number;
}

/**
 * What a lookup decides by: the time now, and the shorter lifetimes of a person holding any
 * staff role (STAFF_SESSION_IDLE_MINUTES, STAFF_SESSION_HOURS): a console left open or a stolen
 * cookie reaches refunds and prices, so it must not live for weeks.
 */
export interface SessionPolicy {
  now: Date;
  staff: SessionLifetimes;
}

const EVERYONE: SessionLifetimes = { idleMs: SESSION_IDLE_MS, absoluteMs: SESSION_ABSOLUTE_MS };
/** The staff lifetimes when no configuration says otherwise (the settings' defaults). */
export const STAFF_SESSION_DEFAULTS: SessionLifetimes = { idleMs: 60 * 60_000, absoluteMs: 12 * 3600_000 };
const systemPolicy = (): SessionPolicy => ({ now: new Date(), staff: STAFF_SESSION_DEFAULTS });

/** Starts a session; returns the cookie value (never stored) and its hash. `device` names the browser (deviceLabel). */
export async function createSession(
  db: Db,
  userId: number,
  policy = systemPolicy(),
  device: string | null = null,
): Promise<{ id: string; idHash: string }> {
  const id = randomBytes(32).toString('base64url');
  const idHash = hashSessionId(id);
  const { now } = policy;
  // A staff member's shorter lifetimes apply at each lookup (a role may come or go meanwhile).
  const expires = new Date(now.getTime() + SESSION_IDLE_MS);
  await db('web_sessions').insert({
    id_hash: idHash,
    user_id: userId,
    created_at: now,
    last_seen_at: now,
    expires_at: expires,
    device_label: device,
  });
  // Expired sessions of this user go now; nothing else needs to sweep them.
  await db('web_sessions')
    .where({ user_id: userId })
    .where((q) => q.where('expires_at', '<', now).orWhere('created_at', '<', new Date(now.getTime() - SESSION_ABSOLUTE_MS)))
    .delete();
  return { id, idHash };
}

/** What a lookup reads of a session and its user: kept per process (SessionCache) between changes. */
export interface SessionRow {
  last_seen_at: Date;
  expires_at: Date;
  session_created_at: Date;
  id: number;
  email: string;
  email_verified_at: Date | null;
  created_at: Date;
  staff: boolean;
}

/** Sessions by the hash of their cookie value, forgotten at any change to the session or its user. */
export type SessionCache = PeopleCache<string, SessionRow>;

/**
 * The live session named by a cookie value, or null; slides the idle expiry forward. With a
 * cache, a session read before (and unchanged since) costs no query until its expiry is due to move.
 */
export async function findSession(
  db: Db,
  id: string | undefined,
  policy = systemPolicy(),
  cache?: SessionCache,
): Promise<ActiveSession | null> {
  if (!id || id.length > 100) return null;
  const idHash = hashSessionId(id);
  const kept = cache?.get(idHash);
  if (kept) {
    const life = lifeOf(kept, policy);
    if (life && !life.renewed) return activeSession(idHash, kept, life.end, false);
  }
  const since = cache?.begin() ?? 0;
  const row: SessionRow | undefined = await db('web_sessions as s')
    .join('users as u', 'u.id', 's.user_id')
    .where('s.id_hash', idHash)
    .where('s.expires_at', '>', policy.now)
    .first(
      's.last_seen_at',
      's.expires_at',
      's.created_at as session_created_at',
      'u.id',
      'u.email',
      'u.email_verified_at',
      'u.created_at',
      db.raw('exists (select 1 from staff_roles r where r.user_id = u.id and r.revoked_at is null) as staff'),
    );
  if (!row) return null;
  const life = lifeOf(row, policy);
  if (!life) {
    // Ended for good: a role taken back later must not bring a staff session back to life.
    await db('web_sessions').where({ id_hash: idHash }).delete();
    return null;
  }
  if (life.renewed) {
    // Slides forward by the idle lifetime, but never past the absolute end.
    await db('web_sessions')
      .where({ id_hash: idHash })
      .update({ last_seen_at: policy.now, expires_at: new Date(life.end) });
  } else {
    cache?.keep(idHash, row.id, row, since);
  }
  return activeSession(idHash, row, life.end, life.renewed);
}

/** When a session ends as of now (null: it has), and whether this use slides its idle expiry forward (to `end`). */
function lifeOf(row: SessionRow, policy: SessionPolicy): { end: number; renewed: boolean } | null {
  const now = policy.now.getTime();
  const lifetimes = row.staff ? policy.staff : EVERYONE;
  const lastSeen = row.last_seen_at.getTime();
  const absoluteEnd = row.session_created_at.getTime() + lifetimes.absoluteMs;
  const end = Math.min(row.expires_at.getTime(), lastSeen + lifetimes.idleMs, absoluteEnd);
  if (end <= now) return null;
  // Short idle lifetimes are slid forward more often, so an active person is never cut off early.
  const renewed = now - lastSeen > Math.min(TOUCH_EVERY_MS, lifetimes.idleMs / 12);
  return renewed ? { end: Math.min(now + lifetimes.idleMs, absoluteEnd), renewed } : { end, renewed };
}

function activeSession(idHash: string, row: SessionRow, end: number, renewed: boolean): ActiveSession {
  const user = { id: row.id, email: row.email, emailVerifiedAt: row.email_verified_at, createdAt: row.created_at };
  return { idHash, user, renewed, expiresAt: new Date(end) };
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
