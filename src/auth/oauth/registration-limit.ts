import type { Db } from '../../db/knex.ts';
import { tooManyRequests } from '../../errors.ts';

export interface RegistrationLimit {
  /** Registrations per client address within the window (offices and agents behind NAT share one). */
  perIp: number;
  windowSeconds: number;
}

/**
 * Counts an open dynamic registration of `ip`, or refuses it (429 with Retry-After) past the
 * limit. Registrations of one address take turns under a transaction-scoped advisory lock, so a
 * burst across api processes lets exactly the limit through; a refused one is not counted, so
 * hammering does not push the wait further out.
 */
export async function limitRegistrations(db: Db, limit: RegistrationLimit, ip: string): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`oauth-registration:${ip}`]);
    const since = trx.raw(`now() - make_interval(secs => ?)`, [limit.windowSeconds]);
    const counted = () => trx('oauth_registrations').where({ ip }).where('created_at', '>', since);
    const [{ count }] = await counted().count<{ count: string }[]>({ count: '*' });
    if (Number(count) < limit.perIp) {
      await trx('oauth_registrations').insert({ ip });
      // Old rows matter to nobody; a small share of registrations sweeps them.
      if (Math.random() < 0.05) await trx('oauth_registrations').where('created_at', '<', since).delete();
      return;
    }
    // The wait ends when enough of the counted registrations have left the window.
    const wait = trx.raw(`ceil(extract(epoch FROM created_at + make_interval(secs => ?) - now()))::int AS wait`, [limit.windowSeconds]);
    const row = (await counted()
      .orderBy('created_at')
      .offset(Number(count) - limit.perIp)
      .first(wait)) as { wait: number } | undefined;
    throw tooManyRequests(
      `This address registered ${limit.perIp} OAuth clients within ${limit.windowSeconds} seconds, the limit. Reuse a registered client or retry later.`,
      Math.max(1, row?.wait ?? limit.windowSeconds),
    );
  });
}
