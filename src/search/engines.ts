import type { Db } from '../db/knex.ts';
import type { SearchEngine } from '../domain/listings/search-port.ts';
import { MemorySearch } from './memory-engine.ts';
import { PostgresSearch } from './postgres-engine.ts';

export interface SearchSettings {
  /**
   * `memory`: each api process answers from its own in-memory index (memory-engine.ts), kept in
   * step with PostgreSQL before every search. `postgres`: SQL answers (postgres-engine.ts), the reference.
   */
  engine: 'memory' | 'postgres';
  /** How long the postgres engine reuses a result (the memory engine is always fresh). */
  cacheTtlMs: number;
}

/** The configured engine; main.ts makes one per process (services.ts) and hands it down. */
export function createSearchEngine(db: Db, settings: SearchSettings): SearchEngine {
  return settings.engine === 'memory' ? new MemorySearch(db) : new PostgresSearch(db, settings);
}
