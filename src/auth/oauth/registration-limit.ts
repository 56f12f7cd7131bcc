import type { Db } from '../../db/knex.ts';
import { tooManyRequests } from '../../errors.ts';

export interface RegistrationLimit {
  /** Registrations per client address within the window (offices and agents behind NAT share one). */
  perIp: number;
  windowSeconds: number;
}

/**
 * Counts an open dynamic registration of `ip` and refuses it (429 with Retry-After) past the
 * limit. Counting after the insert, in PostgreSQL, keeps the limit when requests race across api
 * processes (concurrent registrations see each other); a refused attempt is not kept, so
 * hammering does not push the wait further out.
 */
export async function limitRegistrations(db: Db, limit: RegistrationLimit, ip: string): Promise<void> {
  const [{ id }] = await db('oauth_registrations').insert({ ip }).returning('id');
  const since = db.raw(`now() - make_interval(secs => ?)`, [limit.windowSeconds]);
  const earlier = () => db('oauth_registrations').where({ ip }).where('created_at', '>', since).whereNot({ id });
  const [{ count }] = await earlier().count<{ count: string }[]>({ count: '*' });
  if (Number(count) < limit.perIp) {
    // Old rows matter to nobody; a small share of registrations sweeps them.
    if (Math.random() < 0.05) await db('oauth_registrations').where('created_at', '<', since).delete();
    return;
  }
  await db('oauth_registrations').where({ id }).delete();
  // The wait ends when enough of the counted registrations have left the window.
  const wait = db.raw(`ceil(extract(epoch FROM created_at + make_interval(secs => ?) - now()))::int AS wait`, [limit.windowSeconds]);
  const row = (await earlier().orderBy('created_at').offset(Number(count) - limit.perIp).first(wait)) as { wait: number } | undefined;
  const retryAfter = Math.max(1, row?.wait ?? limit.windowSeconds);
  throw tooManyRequests(
    `This address registered ${limit.perIp} OAuth clients within ${limit.windowSeconds} seconds, the limit. Reuse a registered client or retry later.`,
    retryAfter,
  );
}
