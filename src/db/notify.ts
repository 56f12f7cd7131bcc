import pg from 'pg';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Db } from './knex.ts';

/**
 * Change notices between processes (docs/decisions/change-notices.md). Each api process keeps
 * copies of what PostgreSQL holds (kept pages, caches, the search index); a write that changes
 * what they show announces it here, in its transaction where it has one (pg_notify is delivered
 * at the commit, and not at all on a rollback), and every api process listening forgets the
 * same entries the writing process forgets. The channel and the payload are defined here only.
 */
export const CHANGES_CHANNEL = 'listing_directory_changes';

/**
 * What changed. `votes`: a listing's counts (its own kept page and the pages that rank listings).
 * `listing`: what a listing shows (its own page, the pages that rank or list it, the leaderboard
 * and browse answers). `listings`: which listings a site shows (every kept page of the site, the
 * leaderboard and browse answers). `site`: a site's settings. `api-key`: a key was revoked.
 * `search`: an index outside PostgreSQL (OpenSearch) took in changes; answers kept from it are old.
 * `person`: what a signed-in person's pages show of their own (session, account, votes, follows,
 * comments, notifications, owned listings) changed for `user`, or for everyone without one; sent
 * by triggers (src/db/migrations/054-person-notices.ts), not by code.
 */
export const ChangeNotice = z.object({
  site: z.number().int().nullable(),
  what: z.enum(['votes', 'listing', 'listings', 'site', 'api-key', 'search', 'person']),
  /** The listing's slug, for `votes` and `listing`. */
  slug: z.string().max(200).optional(),
  /** The person, for `person`. */
  user: z.number().int().optional(),
});
export type ChangeNotice = z.infer<typeof ChangeNotice>;
export type ChangeKind = ChangeNotice['what'];

/** The application_name of the LISTEN connections, followed by the process id. */
export const LISTENER_NAME = 'listing-directory changes';

/** Announces a change (at the commit of `db` when it is a transaction). */
export async function announceChange(db: Db, notice: ChangeNotice): Promise<void> {
  await db.raw('SELECT pg_notify(?, ?)', [CHANGES_CHANNEL, JSON.stringify(notice)]);
}

/** Announces a change of each of the listings `ids`, their site and slug read in the same statement. */
export async function announceListingChange(db: Db, what: 'votes' | 'listing' | 'listings', ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.raw(
    `SELECT pg_notify(?, json_build_object('site', site_id, 'what', ?::text, 'slug', slug)::text) FROM listings WHERE id = ANY(?)`,
    [CHANGES_CHANNEL, what, ids],
  );
}

/** The notice a payload carries; null for anything else (a payload of a later version, say). */
export function parseNotice(payload: string | undefined): ChangeNotice | null {
  try {
    const parsed = ChangeNotice.safeParse(JSON.parse(payload ?? ''));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export interface ChangeListenerOptions {
  /** The LISTEN connection's database (a connection of its own, outside the pool). */
  databaseUrl: string;
  log: Logger;
  /** A change another process (or this one) committed. */
  onNotice(notice: ChangeNotice): void;
  /** The connection was (re)made: notices sent while it was down are lost, so forget everything. */
  onListening(): void;
  /** The connection dropped: until onListening, notices are not coming. */
  onLost?(): void;
  /** First pause before connecting again; it doubles up to `maxRetryMs`. @default 100 */
  firstRetryMs?: number;
  /** @default 5000 */
  maxRetryMs?: number;
  /** How often the connection is checked, so a dead one is found and made again. @default 10000 */
  pingMs?: number;
}

export interface ChangeListener {
  /** Whether the LISTEN connection is up. */
  listening(): boolean;
  close(): Promise<void>;
}

/**
 * Holds one dedicated LISTEN connection on CHANGES_CHANNEL. When it drops (the server restarts, an
 * operator terminates it, a ping goes unanswered) it is made again with backoff, and onListening
 * runs once it listens again.
 */
export function listenForChanges(options: ChangeListenerOptions): ChangeListener {
  const { databaseUrl, log, onNotice, onListening, onLost, firstRetryMs = 100, maxRetryMs = 5_000, pingMs = 10_000 } = options;
  let client: pg.Client | undefined;
  let up = false;
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  const ping = setInterval(() => {
    const pinged = client;
    if (up && pinged) pinged.query('SELECT 1').catch((err: Error) => lost(pinged, err));
  }, pingMs).unref();

  function lost(dropped: pg.Client, err: Error | undefined): void {
    if (client !== dropped) return;
    client = undefined;
    up = false;
    onLost?.();
    void dropped.end().catch(() => {});
    if (closed) return;
    const delay = Math.min(maxRetryMs, firstRetryMs * 2 ** failures++);
    log.warn({ err, retryInMs: delay }, 'change notices lost; listening again');
    retry = setTimeout(connect, delay).unref();
  }

  function connect(): void {
    // Named with the process id, so an operator (or a test) finds each process's connection in pg_stat_activity.
    const next = new pg.Client({
      connectionString: databaseUrl,
      keepAlive: true,
      query_timeout: pingMs,
      application_name: `${LISTENER_NAME} ${process.pid}`,
    });
    client = next;
    next.on('notification', (message) => {
      if (message.channel !== CHANGES_CHANNEL) return;
      const notice = parseNotice(message.payload);
      if (notice) onNotice(notice);
      else log.warn({ payload: message.payload }, 'a change notice not understood');
    });
    next.on('error', (err) => lost(next, err));
    next.on('end', () => lost(next, undefined));
    next
      .connect()
      .then(() => next.query(`LISTEN ${CHANGES_CHANNEL}`))
      .then(() => {
        if (client !== next) return;
        failures = 0;
        up = true;
        onListening();
      })
      .catch((err: Error) => lost(next, err));
  }

  connect();
  return {
    listening: () => up,
    async close() {
      closed = true;
      clearInterval(ping);
      clearTimeout(retry);
      const last = client;
      client = undefined;
      up = false;
      await last?.end().catch(() => {});
    },
  };
}
