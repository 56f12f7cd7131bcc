import { randomBytes } from 'node:crypto';
import type { Db } from '../db/knex.ts';

const cache = new WeakMap<Db, Map<string, Promise<Buffer>>>();

/**
 * A named 256-bit server secret, created on first use and shared through PostgreSQL, so every
 * api process signs and checks with the same key without any configuration.
 */
export function appSecret(db: Db, name: string): Promise<Buffer> {
  let byName = cache.get(db);
  if (!byName) cache.set(db, (byName = new Map()));
  let secret = byName.get(name);
  if (!secret) {
    secret = loadOrCreate(db, name);
    byName.set(name, secret);
    secret.catch(() => byName.delete(name));
  }
  return secret;
}

async function loadOrCreate(db: Db, name: string): Promise<Buffer> {
  await db('app_secrets').insert({ name, value: randomBytes(32) }).onConflict('name').ignore();
  const row = await db('app_secrets').where({ name }).first('value');
  return row.value as Buffer;
}
