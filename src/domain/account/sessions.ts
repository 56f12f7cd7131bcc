import type { Db } from '../../db/knex.ts';
import { notFound } from '../../errors/errors.ts';

/** One web session of a person as they see it on /account and through list_sessions. */
export interface SessionView {
  id: string;
  device: string;
  createdAt: Date;
  lastSeenAt: Date;
  current: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The person's live sessions, the one asking first, then the most recently used. */
export async function listSessions(db: Db, userId: number, now: Date, currentIdHash: string | null): Promise<SessionView[]> {
  const rows = await db('web_sessions')
    .where({ user_id: userId })
    .where('expires_at', '>', now)
    .orderBy('last_seen_at', 'desc')
    .select('id_hash', 'public_id', 'device_label', 'created_at', 'last_seen_at');
  return rows
    .map((r) => ({
      id: r.public_id,
      device: r.device_label ?? 'Unknown device',
      createdAt: r.created_at,
      lastSeenAt: r.last_seen_at,
      current: r.id_hash === currentIdHash,
    }))
    .sort((a, b) => Number(b.current) - Number(a.current));
}

/** Signs one of the person's sessions out; another person's (or an unknown) id is not found. */
export async function endSessionOf(db: Db, userId: number, publicId: string): Promise<void> {
  if (!UUID.test(publicId)) throw notFound('The session');
  const ended = await db('web_sessions').where({ user_id: userId, public_id: publicId }).delete();
  if (ended === 0) throw notFound('The session');
}

/** Signs out every session of the person but `keepIdHash` (the one asking, if a session); how many ended. */
export async function endOtherSessions(db: Db, userId: number, keepIdHash: string | null): Promise<number> {
  const query = db('web_sessions').where({ user_id: userId });
  if (keepIdHash) query.whereNot({ id_hash: keepIdHash });
  return query.delete();
}
