import type { Logger } from 'pino';
import type { Db } from '../db/knex.ts';
import type { SearchEngine } from '../domain/listings/search-port.ts';
import { MemorySearch } from './memory-engine.ts';
import { OpenSearchFeed, runSearchFeed, type SearchFeedRun } from './opensearch-feed.ts';
import { openSearchClient } from './opensearch-index.ts';
import { OpenSearchSearch } from './opensearch-engine.ts';
import { PostgresSearch } from './postgres-engine.ts';

export interface SearchSettings {
  /**
   * `memory`: each api process answers from its own in-memory index (memory-engine.ts), kept in
   * step with PostgreSQL before every search. `postgres`: SQL answers (postgres-engine.ts), the
   * reference. `opensearch`: one OpenSearch index (opensearch-engine.ts) that a worker feeds.
   */
  engine: 'memory' | 'postgres' | 'opensearch';
  /** How long the postgres and opensearch engines reuse a result (the memory engine is always fresh). */
  cacheTtlMs: number;
  openSearch: {
    url: string;
    /** No OPENSEARCH_URL: `npm start` runs a node of its own on `port`. */
    embedded: boolean;
    port: number;
    /** The alias searches read. */
    alias: string;
  };
}

/** The configured engine; main.ts makes one per process (services.ts) and hands it down. */
export function createSearchEngine(db: Db, settings: SearchSettings): SearchEngine {
  switch (settings.engine) {
    case 'memory':
      return new MemorySearch(db);
    case 'postgres':
      return new PostgresSearch(db, settings);
    case 'opensearch':
      return new OpenSearchSearch(db, openSearchClient(settings.openSearch), {
        alias: settings.openSearch.alias,
        cacheTtlMs: settings.cacheTtlMs,
      });
  }
}

/** The OpenSearch feed of the configured index (search:reindex and the workers use it). */
export function openSearchFeed(db: Db, settings: SearchSettings): OpenSearchFeed {
  return new OpenSearchFeed(db, openSearchClient(settings.openSearch), settings.openSearch.alias);
}

/** Feeds the index from this worker while no other process does; null for engines that read PostgreSQL themselves. */
export function startSearchFeed(db: Db, settings: SearchSettings, options: { databaseUrl: string; log: Logger }): SearchFeedRun | null {
  return settings.engine === 'opensearch' ? runSearchFeed(openSearchFeed(db, settings), options) : null;
}
