import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import type { AppSecrets } from '../../auth/secrets.ts';
import type { Db } from '../../db/knex.ts';
import { voteButtonViewHour, writeVoteButtonViews } from '../votes/button-views.ts';

const HOUR_MS = 3_600_000;

/** Longest referrer host kept (a DNS name has at most 253 characters). */
const MAX_HOST_LENGTH = 253;

/**
 * Page views and outbound clicks of listings (and showings of Vote buttons), counted in memory and written in batches: a page
 * adds to the buffer and goes on (no database round trip in the request), and the buffer goes to
 * `listing_hourly_counts` with one multi-row upsert every `flushMs` or once `maxEvents` are
 * waiting, and on shutdown. One per process, built by createServices (src/services.ts).
 *
 * A view or a click counts once per client (its address), listing and hour, whatever User-Agent
 * it sends: the buffer merges repeats, and the write keeps a keyed hash of each counted one in
 * `page_count_seen` (the key changes daily and is purged, the address is never stored), so that
 * every api process agrees on what was counted.
 */
export interface PageCounters {
  /**
   * One view of a listing's page, by its slug (pages served from a kept copy know no more);
   * `referrerHost` is the referring page's host (null: none).
   */
  view(slug: string, referrerHost: string | null, client: string): void;
  /** One click through /go/{slug} to the listing's website, by `client` (its address). */
  click(slug: string, client: string): void;
  /**
   * One showing at `now` of a listing's Vote button to a signed-in person who has not voted
   * (src/domain/votes/button-views.ts): every showing counts, only while the launch week runs.
   * Buffered like the views, so a page with many Vote buttons writes nothing itself.
   */
  voteButtonShown(listingId: number, launchWeek: string | null, now: Date): void;
  /** Writes what is buffered now; resolves once it is stored (or its failure is logged). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left. */
  close(): Promise<void>;
}

export interface PageCounterOptions {
  /** Whether counting is on; off, view() and click() do nothing (for benchmarks). @default true */
  enabled?: boolean;
  /** @default 1000 */
  flushMs?: number;
  /**
   * A flush starts at once when this many events are waiting (the buffer holds one entry per
   * kind, listing, hour and client, so at most this many). @default 10000: a busy process writes
   * one statement a second rather than one per thousand views.
   */
  maxEvents?: number;
}

/** One counted event waiting in the buffer: the first of its kind, listing, hour and client. */
interface Pending {
  kind: 'view' | 'click';
  slug: string;
  hourMs: number;
  host: string;
  client: string;
}

/** A pending event as written: the client replaced by the keyed hash of the event. */
interface Counts {
  seen: string;
  slug: string;
  hour: Date;
  host: string;
  views: number;
  clicks: number;
}

export function createPageCounters(db: Db, secrets: AppSecrets, log: Logger, options: PageCounterOptions = {}): PageCounters {
  const enabled = options.enabled ?? true;
  const maxEvents = options.maxEvents ?? 10_000;
  let buffer = new Map<string, Pending>();
  /** Vote button showings by hour (ms) and listing: a page shows dozens, so no key is built per showing. */
  let buttons = new Map<number, Map<number, number>>();
  let writing: Promise<void> = Promise.resolve();

  function add(kind: Pending['kind'], slug: string, host: string, client: string) {
    if (!enabled) return;
    const hourMs = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
    const key = `${kind} ${slug} ${hourMs} ${client}`;
    if (buffer.has(key)) return;
    buffer.set(key, { kind, slug, hourMs, host, client });
    if (buffer.size >= maxEvents) void flush();
  }

  function voteButtonShown(listingId: number, launchWeek: string | null, now: Date) {
    const hour = enabled ? voteButtonViewHour(launchWeek, now) : null;
    if (hour === null) return;
    let listings = buttons.get(hour);
    if (!listings) buttons.set(hour, (listings = new Map()));
    listings.set(listingId, (listings.get(listingId) ?? 0) + 1);
  }

  /** Writes are chained: two flushes never race for the same rows' locks in one process. */
  function flush(): Promise<void> {
    if (buffer.size === 0 && buttons.size === 0) return writing;
    const pending = [...buffer.values()];
    const shown = [...buttons].flatMap(([hourMs, listings]) =>
      [...listings].map(([listing, views]) => ({ listing_id: listing, hour: new Date(hourMs), views })),
    );
    buffer = new Map();
    buttons = new Map();
    writing = writing
      .then(async () => {
        if (pending.length > 0) await writeOnce(db, await hashed(secrets, pending));
        if (shown.length > 0) await writeVoteButtonViews(db, shown);
      })
      .catch((err: unknown) => {
        // Counts are best effort: a database that is down loses this second's counts, not the page.
        log.warn({ err, rows: pending.length + shown.length }, 'page counts not stored');
      });
    return writing;
  }

  const timer = setInterval(() => void flush(), options.flushMs ?? 1_000);
  timer.unref();

  return {
    view: (slug, referrerHost, client) => add('view', slug, referrerHost?.slice(0, MAX_HOST_LENGTH) ?? '', client),
    click: (slug, client) => add('click', slug, '', client),
    voteButtonShown,
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

/**
 * Each event with its keyed hash instead of the client: HMAC-SHA256 with the key of the event's
 * UTC day (app secret `page-count:{day}`, purged after two days by the maintenance workflow).
 */
async function hashed(secrets: AppSecrets, pending: Pending[]): Promise<Counts[]> {
  // A KeyObject, not the Buffer: an HMAC made from a Buffer prepares the key anew, 6–7 times the cost of the hash.
  const keys = new Map<string, KeyObject>();
  const out: Counts[] = [];
  for (const p of pending) {
    const day = new Date(p.hourMs).toISOString().slice(0, 10);
    let key = keys.get(day);
    if (!key) keys.set(day, (key = createSecretKey(await secrets.get(`${PAGE_COUNT_KEY_PREFIX}${day}`))));
    const seen = createHmac('sha256', key).update(`${p.kind} ${p.slug} ${p.hourMs} ${p.client}`).digest('hex');
    const view = p.kind === 'view' ? 1 : 0;
    out.push({ seen, slug: p.slug, hour: new Date(p.hourMs), host: p.host, views: view, clicks: 1 - view });
  }
  return out;
}

/** Names of the daily keys in app_secrets (`page-count:2026-11-28`). */
export const PAGE_COUNT_KEY_PREFIX = 'page-count:';

/**
 * A listing deleted between the join and the foreign key check fails the statement: once more,
 * the join then leaves it out.
 */
async function writeOnce(db: Db, batch: Counts[]): Promise<void> {
  try {
    await write(db, batch);
  } catch (err) {
    if ((err as { code?: string }).code !== '23503') throw err;
    await write(db, batch);
  }
}

/**
 * One statement: the events not counted yet (by any process) leave their hash in
 * `page_count_seen`, and only those are added to the hour's rows with one multi-row upsert. The
 * join finds each slug's listing (slugs are unique) and leaves out rows of listings deleted
 * meanwhile. Ordered, so concurrent processes lock the same rows in the same order (no deadlocks).
 */
async function write(db: Db, batch: Counts[]): Promise<void> {
  const rows = batch.map((c) => ({ seen: c.seen, slug: c.slug, hour: c.hour, referrer_host: c.host, views: c.views, clicks: c.clicks }));
  await db.raw(
    `WITH b AS (
       SELECT b.*, decode(b.seen, 'hex') AS seen_hash
       FROM jsonb_to_recordset(?::jsonb) AS b(seen text, slug text, hour timestamptz, referrer_host text, views int, clicks int)
     ), fresh AS (
       INSERT INTO page_count_seen (seen, hour)
       SELECT b.seen_hash, b.hour FROM b JOIN listings l ON l.slug = b.slug ORDER BY b.seen_hash
       ON CONFLICT (seen) DO NOTHING
       RETURNING seen
     )
     INSERT INTO listing_hourly_counts (listing_id, hour, referrer_host, views, clicks)
     SELECT l.id, b.hour, b.referrer_host, sum(b.views), sum(b.clicks)
     FROM b
     JOIN fresh ON fresh.seen = b.seen_hash
     JOIN listings l ON l.slug = b.slug
     GROUP BY l.id, b.hour, b.referrer_host
     ORDER BY l.id, b.hour, b.referrer_host
     ON CONFLICT (listing_id, hour, referrer_host) DO UPDATE
       SET views = listing_hourly_counts.views + excluded.views, clicks = listing_hourly_counts.clicks + excluded.clicks`,
    [JSON.stringify(rows)],
  );
}
