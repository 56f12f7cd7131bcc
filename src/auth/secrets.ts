import { randomBytes } from 'node:crypto';
import { TtlCache } from '../cache/ttl-cache.ts';
import type { Db } from '../db/knex.ts';

/**
 * A named 256-bit server secret, created on first use and shared through PostgreSQL, so every
 * api process signs and checks with the same key without any configuration.
 */
export interface AppSecrets {
  get(name: string): Promise<Buffer>;
}

/** The process's app secrets, built once by createServices. */
export function createAppSecrets(db: Db): AppSecrets {
  // Kept for the life of the process; a failed load is retried by the next call.
  const cache = new TtlCache<Buffer>({ ttlMs: Infinity, maxEntries: 100 });
  return { get: (name) => cache.get(name, () => loadOrCreate(db, name)) };
}

async function loadOrCreate(db: Db, name: string): Promise<Buffer> {
  await db('app_secrets')
    .insert({ name, value: randomBytes(32) })
    .onConflict('name')
    .ignore();
  const row = await db('app_secrets').where({ name }).first('value');
  return row!.value as Buffer;
}
