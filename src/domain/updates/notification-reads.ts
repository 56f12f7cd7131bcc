import type { Db } from '../../db/knex.ts';

export interface ReadMarks {
  /** The ids marked read by this call (or read before: marking twice changes nothing). */
  marked: number[];
  /** Ids that are not the person's notifications (unknown, or someone else's): ignored. */
  not_found: number[];
  /** The person's unread notifications after the change. */
  unread: number;
}

/** How many of the person's notifications are unread: one count over the partial index of unread rows. */
export async function unreadCount(db: Db, userId: number): Promise<number> {
  const row = await db('notifications').where({ user_id: userId }).whereNull('read_at').count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/**
 * Marks some of the person's notifications read. Ids of other people's notifications are treated
 * exactly like unknown ones (listed as `not_found`, nothing changed), so the answer tells nobody
 * whose they are.
 */
export async function markRead(db: Db, userId: number, ids: number[], now: Date): Promise<ReadMarks> {
  const wanted = [...new Set(ids)];
  const mine: number[] = await db('notifications').where({ user_id: userId }).whereIn('id', wanted).pluck('id');
  await db('notifications').where({ user_id: userId }).whereIn('id', mine).whereNull('read_at').update({ read_at: now });
  const found = new Set(mine);
  return {
    marked: wanted.filter((id) => found.has(id)),
    not_found: wanted.filter((id) => !found.has(id)),
    unread: await unreadCount(db, userId),
  };
}

/** Marks every unread notification of the person read; returns how many it marked. */
export async function markAllRead(db: Db, userId: number, now: Date): Promise<{ marked: number; unread: number }> {
  const marked = await db('notifications').where({ user_id: userId }).whereNull('read_at').update({ read_at: now });
  return { marked, unread: await unreadCount(db, userId) };
}
