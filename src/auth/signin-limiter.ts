import type { Db } from '../db/knex.ts';
import type { SigninLimits } from '../config.ts';

export type { SigninLimits };

export type AttemptStart = { ok: true; attemptId: number; delayMs: number } | { ok: false; retryAfterSeconds: number };

/**
 * Registers a sign-in attempt before the password is checked, then counts. Counting after the
 * insert, in PostgreSQL, keeps the limit when many attempts race across many api processes:
 * concurrent attempts see each other (pending rows count as failures until finished).
 * A client address is blocked (429) after too many failures overall or on one email. An email
 * address is never blocked for everyone, or anybody could lock its owner out by guessing from
 * elsewhere: past `perEmail` failures from all addresses, each attempt on it waits a delay that
 * doubles with every further failure (1 s, 2 s, 4 s ... up to `maxDelaySeconds`).
 */
export async function beginAttempt(db: Db, limits: SigninLimits, email: string, ip: string): Promise<AttemptStart> {
  const [{ id }] = await db('signin_attempts').insert({ email, ip }).returning('id');
  const since = db.raw(`now() - make_interval(secs => ?)`, [limits.windowSeconds]);
  const counted = () => db('signin_attempts').whereNot({ outcome: 'success' }).where('created_at', '>', since).whereNot({ id });
  const [{ byEmail, byPair, byIp }] = await counted().select(
    db.raw('count(*) FILTER (WHERE email = ?)::int AS "byEmail"', [email]),
    db.raw('count(*) FILTER (WHERE email = ? AND ip = ?)::int AS "byPair"', [email, ip]),
    db.raw('count(*) FILTER (WHERE ip = ?)::int AS "byIp"', [ip]),
  );
  if (byPair < limits.perEmail && byIp < limits.perIp) return { ok: true, attemptId: id, delayMs: slowDownMs(byEmail, limits) };
  // A refused attempt is not recorded, so hammering does not extend the lockout forever.
  await db('signin_attempts').where({ id }).delete();
  const waits = await Promise.all([
    byPair >= limits.perEmail ? secondsUntilBelow(db, counted().where({ email, ip }), byPair - limits.perEmail, limits) : 0,
    byIp >= limits.perIp ? secondsUntilBelow(db, counted().where({ ip }), byIp - limits.perIp, limits) : 0,
  ]);
  return { ok: false, retryAfterSeconds: Math.max(1, ...waits) };
}

/** The progressive delay of an attempt on an email address with `failures` recent failures. */
export function slowDownMs(failures: number, limits: Pick<SigninLimits, 'perEmail' | 'maxDelaySeconds'>): number {
  if (failures < limits.perEmail) return 0;
  return Math.min(1000 * 2 ** Math.min(failures - limits.perEmail, 20), limits.maxDelaySeconds * 1000);
}

/** Seconds until the `skip`-th oldest counted attempt leaves the window, bringing the count under the limit. */
async function secondsUntilBelow(db: Db, rows: ReturnType<Db>, skip: number, limits: SigninLimits): Promise<number> {
  const wait = db.raw(`ceil(extract(epoch FROM created_at + make_interval(secs => ?) - now()))::int AS wait`, [limits.windowSeconds]);
  const row = (await rows.orderBy('created_at').offset(skip).first(wait)) as { wait: number } | undefined;
  return row?.wait ?? limits.windowSeconds;
}

/**
 * Records how an attempt ended. A success forgets the failures of that email from that client
 * address (the owner's own typos), not those from elsewhere: signing in must not reset the
 * count of someone guessing from another address.
 */
export async function finishAttempt(db: Db, attemptId: number, email: string, ip: string, outcome: 'success' | 'failure'): Promise<void> {
  await db('signin_attempts').where({ id: attemptId }).update({ outcome });
  if (outcome === 'success') await db('signin_attempts').where({ email, ip }).whereNot({ outcome: 'success' }).delete();
  // Old rows matter to nobody; a small share of attempts sweeps them (indexed on created_at).
  if (Math.random() < 0.01) await db('signin_attempts').where('created_at', '<', db.raw(`now() - interval '1 day'`)).delete();
}

/** Clears an email's failures (after a successful sign-in or a password reset). */
export async function forgetFailures(db: Db, email: string): Promise<void> {
  await db('signin_attempts').where({ email }).whereNot({ outcome: 'success' }).delete();
}
