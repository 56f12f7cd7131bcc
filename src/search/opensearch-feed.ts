import type { Client } from '@opensearch-project/opensearch';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../db/knex.ts';
import { announceChange, CHANGES_CHANNEL } from '../db/notify.ts';
import { pruneChanges, PRUNE_EVERY_MS, STALE_AFTER_MS } from './change-log.ts';
import { aliasTarget, createListingIndex, listingDocuments, liveDocuments, moveAlias, writeDocuments } from './opensearch-index.ts';

/**
 * Feeds the OpenSearch index from `search_changes`, the log PostgreSQL's triggers write for every
 * change of a listing or a featured placement. Where the feed stands is a row of `search_feeds`:
 * a round reads the changes of transactions at or after its xmin it has not applied (so commits
 * out of order are not missed), writes those listings' documents as PostgreSQL holds them now,
 * refreshes the index, then saves the new xmin. Each round first claims the next round number and
 * writes it as the documents' external version: a round that crashed is replayed by the next with a
 * higher number (the documents are the listings' current state, so applying a change again is
 * harmless), and a feeder that wakes late cannot overwrite what a later round wrote.
 * One feeder runs at a time (runSearchFeed holds an advisory lock); any worker takes over.
 */
export class OpenSearchFeed {
  readonly #db: Db;
  readonly #client: Client;
  readonly #alias: string;

  constructor(db: Db, client: Client, alias: string) {
    this.#db = db;
    this.#client = client;
    this.#alias = alias;
  }

  /** Applies the changes not yet in the index; the number of listings written. Builds the index first when there is none. */
  async round(): Promise<number> {
    const feed = await this.#db('search_feeds').where({ name: this.#alias }).first();
    if (!feed || Date.now() - feed.fed_at.getTime() > STALE_AFTER_MS) {
      // Never fed, or idle so long that the changes it missed may have been pruned.
      await this.reindex();
      return this.round();
    }
    const version = await this.#claimRound();
    const { rows } = await this.#db.raw(
      `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin,
              array(SELECT c.xid::text || ':' || c.listing_id FROM search_changes c WHERE c.xid >= ?::xid8) AS changes`,
      [feed.from_xid],
    );
    const xmin = BigInt(rows[0].xmin);
    const applied = new Set(feed.applied);
    const fresh = (rows[0].changes as string[]).filter((c) => !applied.has(c));
    const ids = [...new Set(fresh.map((c) => Number(c.split(':')[1])))];
    if (ids.length > 0) {
      await writeDocuments(this.#client, feed.index_name, ids, await listingDocuments(this.#db, ids), version);
      await this.#client.indices.refresh({ index: feed.index_name });
      // Api processes drop the answers they kept from before these writes.
      await announceChange(this.#db, { site: null, what: 'search' });
    }
    const keep = [...applied, ...fresh].filter((c) => BigInt(c.split(':')[0]!) >= xmin);
    const saved = await this.#db('search_feeds')
      .where({ name: this.#alias, index_name: feed.index_name })
      .update({ from_xid: xmin.toString(), applied: keep, fed_at: this.#db.fn.now() });
    // A reindex moved the feed meanwhile: its snapshot and xmin already cover these changes.
    if (saved === 0) return ids.length;
    if ((await aliasTarget(this.#client, this.#alias)) !== feed.index_name) await moveAlias(this.#client, this.#alias, feed.index_name);
    return ids.length;
  }

  /**
   * Builds a new index from one snapshot of the live listings and hands it to the feed: the next
   * round writes the changes since the snapshot into it, then moves the alias, so searches read
   * the old index until the new one has caught up, and never an empty one.
   */
  async reindex(log?: Logger): Promise<{ index: string; documents: number }> {
    const index = await createListingIndex(this.#client, this.#alias);
    const version = await this.#claimRound();
    let documents = 0;
    let xmin = '';
    await this.#db.transaction(async (trx) => {
      await trx.raw('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      xmin = (await trx.raw('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin')).rows[0].xmin;
      for (let after = 0; ;) {
        const batch = await liveDocuments(trx, after, REINDEX_BATCH);
        await writeDocuments(
          this.#client,
          index,
          batch.map((d) => d.id),
          new Map(batch.map((d) => [d.id, d])),
          version,
        );
        documents += batch.length;
        log?.info({ index, documents }, 'reindexing');
        if (batch.length < REINDEX_BATCH) break;
        after = batch.at(-1)!.id;
      }
    });
    await this.#client.indices.refresh({ index });
    // The first index is searched at once; a later one once the feed has caught it up.
    if (!(await aliasTarget(this.#client, this.#alias))) await moveAlias(this.#client, this.#alias, index);
    await this.#db('search_feeds')
      .insert({ name: this.#alias, index_name: index, from_xid: xmin, applied: [], round: version })
      .onConflict('name')
      .merge({ index_name: index, from_xid: xmin, applied: [], fed_at: this.#db.fn.now() });
    return { index, documents };
  }

  /** Deletes changes older than any feed or api process still reads (an hour). */
  prune(): Promise<void> {
    return pruneChanges(this.#db);
  }

  async #claimRound(): Promise<number> {
    const [row] = await this.#db('search_feeds').where({ name: this.#alias }).increment('round', 1).returning('round');
    // Before the first index exists there is no row: its build is round 1.
    return Number(row?.round ?? 1);
  }
}

export interface SearchFeedRun {
  stop(): Promise<void>;
}

/**
 * Runs the feed in this process while it holds the feed's advisory lock (tried every
 * LOCK_RETRY_MS, so when the feeding process dies another worker takes over): a round when a
 * change notice arrives (rounds never overlap; notices during one make one more), and every
 * IDLE_ROUND_MS for writes that announce nothing.
 */
export function runSearchFeed(feed: OpenSearchFeed, options: { databaseUrl: string; log: Logger; lockRetryMs?: number }): SearchFeedRun {
  const { log, lockRetryMs = LOCK_RETRY_MS } = options;
  let stopped = false;
  let client: pg.Client | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | null = null;
  let lastPrune = 0;
  const wake = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = feed
      .round()
      .then(async () => {
        if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
          lastPrune = Date.now();
          await feed.prune();
        }
      })
      .catch((error: unknown) => log.warn({ err: error }, 'search feed round failed; the next one retries'))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          wake();
        }
      });
  };
  const hold = async (): Promise<void> => {
    if (stopped) return;
    try {
      client = new pg.Client({ connectionString: options.databaseUrl, application_name: 'listing-directory search feed' });
      client.on('error', () => undefined);
      await client.connect();
      const { rows } = await client.query('SELECT pg_try_advisory_lock($1) AS held', [FEED_LOCK]);
      if (!rows[0].held) throw new Error('another process feeds the search index');
      client.on('notification', wake);
      client.on('end', () => {
        if (!stopped) retry();
      });
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
      log.info('feeding the search index');
      timer = setInterval(wake, IDLE_ROUND_MS);
      wake();
    } catch {
      await client?.end().catch(() => undefined);
      retry();
    }
  };
  const retry = (): void => {
    if (timer) clearInterval(timer);
    timer = null;
    if (!stopped) setTimeout(() => void hold(), lockRetryMs).unref();
  };
  void hold();
  return {
    stop: async () => {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
      await client?.end().catch(() => undefined);
    },
  };
}

/** pg_advisory_lock key of the feeder ('srch' as an integer). */
const FEED_LOCK = 0x73726368;
const REINDEX_BATCH = 5_000;
const IDLE_ROUND_MS = 1_000;
const LOCK_RETRY_MS = 5_000;
