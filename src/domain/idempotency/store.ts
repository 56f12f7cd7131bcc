import { sha256Hex } from '../../lib/hash.ts';
import type { Db } from '../../db/knex.ts';
import { conflict, unprocessable } from '../../errors/errors.ts';

const TTL_HOURS = 24;

export interface StoredResponse {
  status: number;
  body: unknown;
}

/** Canonical JSON (sorted keys) so that the same body in another key order is the same request. */
export function requestHash(value: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
          )
        : v;
  return sha256Hex(JSON.stringify(canonical(value) ?? null));
}

export interface IdempotencyScope {
  credential: string;
  operation: string;
  key: string;
}

/**
 * Runs `work` once per (credential, operation, key). Same key and same body replays the stored
 * response; another body is 422 idempotency_conflict; a call still running is 409. A failed call
 * releases the key so that the caller can retry. Keys expire 24 h after `now`, their first use.
 */
export async function withIdempotency(
  db: Db,
  scope: IdempotencyScope,
  hash: string,
  work: () => Promise<StoredResponse>,
  now: Date,
): Promise<StoredResponse & { replayed: boolean }> {
  const claimed = await claim(db, scope, hash, now);
  if (!claimed) {
    const row = await db('idempotency_keys').where(scope).first();
    if (row!.request_hash !== hash) {
      throw unprocessable('idempotency_conflict', 'This Idempotency-Key was already used with a different request body.');
    }
    if (row!.state !== 'done') throw conflict('idempotency_in_flight', 'A request with this Idempotency-Key is still running.');
    return { status: row!.response_status!, body: row!.response_body, replayed: true };
  }
  let response: StoredResponse;
  try {
    response = await work();
  } catch (err) {
    await db('idempotency_keys').where(scope).delete();
    throw err;
  }
  await db('idempotency_keys')
    .where(scope)
    .update({ state: 'done', response_status: response.status, response_body: JSON.stringify(response.body ?? null) });
  return { ...response, replayed: false };
}

/** Inserts the in-flight row, taking over an expired one; false when a live row exists. */
async function claim(db: Db, scope: IdempotencyScope, hash: string, now: Date): Promise<boolean> {
  const expiresAt = new Date(now.getTime() + TTL_HOURS * 3_600_000);
  const inserted = await db.raw(
    `INSERT INTO idempotency_keys (credential, operation, key, request_hash, state, created_at, expires_at)
     VALUES (?, ?, ?, ?, 'in_flight', ?, ?)
     ON CONFLICT (credential, operation, key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, state = 'in_flight', response_status = NULL,
           response_body = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
       WHERE idempotency_keys.expires_at < EXCLUDED.created_at
     RETURNING key`,
    [scope.credential, scope.operation, scope.key, hash, now, expiresAt],
  );
  return inserted.rowCount === 1;
}
