import type { Logger } from 'pino';
import type { Db } from '../../db/knex.ts';

const HOUR_MS = 3_600_000;

/** Longest referrer host kept (a DNS name has at most 253 characters). */
const MAX_HOST_LENGTH = 253;

/**
 * Page views and outbound clicks of listings, counted in memory and written in batches: a page
 * adds to the buffer and goes on (no database round trip in the request), and the buffer goes to
 * `listing_hourly_counts` with one multi-row upsert every `flushMs` or once `maxEvents` are
 * waiting, and on shutdown. One per process, built by createServices (src/services.ts).
 */
export interface PageCounters {
  /**
   * One view of a listing's page, by its slug (pages served from a kept copy know no more);
   * `referrerHost` is the referring page's host (null: none).
   */
  view(slug: string, referrerHost: string | null): void;
  /** One click through /go/{slug} to the listing's website. */
  click(slug: string): void;
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
   * listing, hour and referrer, so at most this many). @default 10000: a busy process writes one
   * upsert a second rather than one per thousand views.
   */
  maxEvents?: number;
}

interface Counts {
  slug: string;
  hour: Date;
  host: string;
  views: number;
  clicks: number;
}

export function createPageCounters(db: Db, log: Logger, options: PageCounterOptions = {}): PageCounters {
  const enabled = options.enabled ?? true;
  const maxEvents = options.maxEvents ?? 10_000;
  let buffer = new Map<string, Counts>();
  let events = 0;
  let writing: Promise<void> = Promise.resolve();

  function add(slug: string, host: string, views: number, clicks: number) {
    if (!enabled) return;
    const hourMs = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
    const key = `${slug} ${hourMs} ${host}`;
    const counts = buffer.get(key);
    if (counts) {
      counts.views += views;
      counts.clicks += clicks;
    } else {
      buffer.set(key, { slug, hour: new Date(hourMs), host, views, clicks });
    }
    if (++events >= maxEvents) void flush();
  }

  /** Writes are chained: two flushes never race for the same rows' locks in one process. */
  function flush(): Promise<void> {
    if (buffer.size === 0) return writing;
    const batch = [...buffer.values()];
    buffer = new Map();
    events = 0;
    writing = writing
      .then(() => writeOnce(db, batch))
      .catch((err: unknown) => {
        // Counts are best effort: a database that is down loses this second's counts, not the page.
        log.warn({ err, rows: batch.length }, 'page counts not stored');
      });
    return writing;
  }

  const timer = setInterval(() => void flush(), options.flushMs ?? 1_000);
  timer.unref();

  return {
    view: (slug, referrerHost) => add(slug, referrerHost?.slice(0, MAX_HOST_LENGTH) ?? '', 1, 0),
    click: (slug) => add(slug, '', 0, 1),
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

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
 * One multi-row upsert; the join finds each slug's listing (slugs are unique) and leaves out rows
 * of listings deleted meanwhile. Ordered, so concurrent processes lock the same rows in the same
 * order (no deadlocks).
 */
async function write(db: Db, batch: Counts[]): Promise<void> {
  const rows = batch.map((c) => ({ slug: c.slug, hour: c.hour, referrer_host: c.host, views: c.views, clicks: c.clicks }));
  await db.raw(
    `INSERT INTO listing_hourly_counts (listing_id, hour, referrer_host, views, clicks)
     SELECT l.id, b.hour, b.referrer_host, sum(b.views), sum(b.clicks)
     FROM jsonb_to_recordset(?::jsonb) AS b(slug text, hour timestamptz, referrer_host text, views int, clicks int)
     JOIN listings l ON l.slug = b.slug
     GROUP BY l.id, b.hour, b.referrer_host
     ORDER BY l.id, b.hour, b.referrer_host
     ON CONFLICT (listing_id, hour, referrer_host) DO UPDATE
       SET views = listing_hourly_counts.views + excluded.views, clicks = listing_hourly_counts.clicks + excluded.clicks`,
    [JSON.stringify(rows)],
  );
}
