import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../lib/hash.ts';
import { TtlCache } from '../cache/ttl-cache.ts';
import type { Db } from '../db/knex.ts';
import { announceChange } from '../db/notify.ts';
import { checkStaffScopes } from '../domain/staff/roles.ts';
import type { Principal, Scope } from './scopes.ts';

const PREFIX = 'ld_';

export interface ApiKeyView {
  id: number;
  name: string;
  prefix: string;
  scopes: Scope[];
  created_at: string;
  last_used_at: string | null;
}

/** SHA-256 suffices: keys carry 256 random bits, so there is nothing to brute-force. */
export const hashApiKey = (key: string) => sha256Hex(key);

/** Creates a key; the plain key is returned here once and never stored. Staff scopes need a staff role that allows them. */
export async function createApiKey(db: Db, userId: number, name: string, scopes: Scope[]): Promise<{ key: string; view: ApiKeyView }> {
  await checkStaffScopes(db, userId, scopes);
  const key = PREFIX + randomBytes(32).toString('base64url');
  const [row] = await db('api_keys')
    .insert({ user_id: userId, name, prefix: key.slice(0, 10), key_hash: hashApiKey(key), scopes })
    .returning(['id', 'name', 'prefix', 'scopes', 'created_at', 'last_used_at']);
  return { key, view: { ...row, created_at: row.created_at.toISOString(), last_used_at: null } };
}

export const looksLikeApiKey = (token: string) => token.startsWith(PREFIX);

const LAST_USED_RESOLUTION_MS = 60_000;
/**
 * How long a verified key is trusted without asking the database again. A revoke in this process
 * takes effect at once (the cache is cleared); another api process clears its own when the change
 * notice arrives (src/db/notify.ts), and within this time at worst, as it sees a revoked OAuth
 * grant (oauth/grants.ts).
 */
export const KEY_CACHE_TTL_MS = 2_000;

/** Verified keys by hash, one cache per process (built by createServices). */
export type ApiKeyCache = TtlCache<Principal | null>;

export const createApiKeyCache = (now?: () => number): ApiKeyCache => new TtlCache({ ttlMs: KEY_CACHE_TTL_MS, maxEntries: 10_000, now });

/** The principal of a live key, or null for an unknown or revoked key. */
export async function authenticateApiKey(db: Db, cache: ApiKeyCache, key: string): Promise<Principal | null> {
  if (!looksLikeApiKey(key) || key.length > 200) return null;
  const hash = hashApiKey(key);
  const principal = await cache.get(hash, () => loadKey(db, hash));
  // Unknown keys are not kept: guesses must not crowd out live keys, and a new key works at once.
  if (!principal) cache.delete(hash);
  return principal;
}

async function loadKey(db: Db, hash: string): Promise<Principal | null> {
  const row = await db('api_keys').where({ key_hash: hash }).whereNull('revoked_at').first('id', 'user_id', 'scopes', 'last_used_at');
  if (!row) return null;
  if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) {
    // Written at most once a minute per key: last-used is for people, not an audit log.
    await db('api_keys').where({ id: row.id }).update({ last_used_at: db.fn.now() });
  }
  return { userId: row.user_id, credentialId: `key:${row.id}`, scopes: row.scopes };
}

/** Revokes one of the user's keys; it fails at once on the next call. */
export async function revokeApiKey(db: Db, cache: ApiKeyCache, userId: number, keyId: number): Promise<boolean> {
  const n = await db('api_keys').where({ id: keyId, user_id: userId }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
  // Only the hash is stored, not which cache entry is this key's: start over (revokes are rare),
  // here and in every other api process.
  cache.clear();
  if (n === 1) await announceChange(db, { site: null, what: 'api-key' });
  return n === 1;
}

/** The user's keys that still work, newest first (the plain keys are not stored, so not shown). */
export async function listApiKeys(db: Db, userId: number): Promise<ApiKeyView[]> {
  const rows = await db('api_keys')
    .where({ user_id: userId })
    .whereNull('revoked_at')
    .orderBy('id', 'desc')
    .select('id', 'name', 'prefix', 'scopes', 'created_at', 'last_used_at');
  return rows.map((r) => ({ ...r, created_at: r.created_at.toISOString(), last_used_at: r.last_used_at?.toISOString() ?? null }));
}

/** One of the user's live keys, found by the plain key (the one-time reveal after creating it); null otherwise. */
export async function liveApiKeyOf(db: Db, userId: number, key: string): Promise<ApiKeyView | null> {
  if (!looksLikeApiKey(key) || key.length > 200) return null;
  const row = await db('api_keys')
    .where({ key_hash: hashApiKey(key), user_id: userId })
    .whereNull('revoked_at')
    .first('id', 'name', 'prefix', 'scopes', 'created_at', 'last_used_at');
  return row ? { ...row, created_at: row.created_at.toISOString(), last_used_at: row.last_used_at?.toISOString() ?? null } : null;
}
