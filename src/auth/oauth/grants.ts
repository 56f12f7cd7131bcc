import { TtlCache } from '../../cache/ttl-cache.ts';
import type { Db } from '../../db/knex.ts';

/**
 * Access tokens are short-lived JWTs: verified without the database, revocation seen within this.
 * (Here rather than in provider.ts, which loads oidc-provider: see lazy-provider.ts.)
 */
export const ACCESS_TOKEN_TTL_SECONDS = 600;

/** How stale an api process's view of revoked grants may be. */
const REVOCATION_REFRESH_MS = 2_000;

/** One app connected through OAuth, for the connected-apps page. */
export interface ConnectedApp {
  grantId: string;
  clientId: string;
  clientName: string;
  scopes: string[];
  grantedAt: Date;
}

/** The live OAuth grants of a user with their client's name and scopes, newest first. */
export async function listConnectedApps(db: Db, userId: number): Promise<ConnectedApp[]> {
  const rows = await db('oauth_payloads as g')
    .leftJoin('oauth_payloads as c', (j) => j.on('c.id', '=', db.raw("g.payload->>'clientId'")).andOnVal('c.model', '=', 'Client'))
    .where('g.model', 'Grant')
    .andWhereRaw("g.payload->>'accountId' = ?", [String(userId)])
    .andWhere((q) => q.whereNull('g.expires_at').orWhere('g.expires_at', '>', db.fn.now()))
    .select('g.id', 'g.payload as grant', 'c.payload as client');
  return rows
    .map((row) => ({
      grantId: row.id as string,
      clientId: row.grant.clientId as string,
      clientName: (row.client?.client_name as string | undefined) ?? (row.grant.clientId as string),
      scopes: [
        ...new Set(
          Object.values((row.grant.resources ?? {}) as Record<string, string>)
            .flatMap((s) => s.split(' '))
            .filter(Boolean),
        ),
      ],
      grantedAt: new Date((row.grant.iat as number) * 1000),
    }))
    .sort((a, b) => b.grantedAt.getTime() - a.grantedAt.getTime());
}

/**
 * Revokes one of the user's grants: its refresh tokens and codes are deleted at once, and its
 * JWT access tokens are refused by every api process within a couple of seconds.
 */
export async function revokeGrant(db: Db, userId: number, grantId: string): Promise<boolean> {
  return db.transaction(async (trx) => {
    const grant = await grantsOf(trx, userId).where({ id: grantId }).first('id');
    if (!grant) return false;
    await endGrants(trx, [grantId]);
    return true;
  });
}

/**
 * Ends every OAuth grant of a user (a password reset: whoever had the old password may have
 * connected an app), as revokeGrant does for one, and forgets the provider's sign-in sessions of
 * the account. API keys are not touched. Returns how many grants ended.
 */
export async function revokeUserGrants(db: Db, userId: number): Promise<number> {
  const ids = (await grantsOf(db, userId).pluck('id')) as string[];
  await endGrants(db, ids);
  await db('oauth_payloads')
    .where({ model: 'Session' })
    .andWhereRaw("payload->>'accountId' = ?", [String(userId)])
    .delete();
  return ids.length;
}

const grantsOf = (db: Db, userId: number) =>
  db('oauth_payloads')
    .where({ model: 'Grant' })
    .andWhereRaw("payload->>'accountId' = ?", [String(userId)]);

/** Records the revocation (seen by every api process) and deletes the grants with their tokens and codes. */
async function endGrants(db: Db, grantIds: string[]): Promise<void> {
  if (!grantIds.length) return;
  await db('oauth_revoked_grants')
    .insert(grantIds.map((id) => ({ grant_id: id })))
    .onConflict('grant_id')
    .ignore();
  await db('oauth_payloads').whereIn('grant_id', grantIds).delete();
  await db('oauth_payloads').where({ model: 'Grant' }).whereIn('id', grantIds).delete();
}

export type RevokedGrantsCache = TtlCache<Set<string>>;

/** The cache behind revokedGrants, one per process. */
export const createRevokedGrantsCache = (): RevokedGrantsCache => new TtlCache({ ttlMs: REVOCATION_REFRESH_MS, maxEntries: 1 });

/**
 * Grants revoked recently enough that one of their access tokens may still be unexpired: one
 * query per process every couple of seconds, however many calls come in.
 */
export function revokedGrants(db: Db, cache: RevokedGrantsCache): Promise<Set<string>> {
  return cache.get('all', async () => {
    const rows = await db('oauth_revoked_grants')
      .where('revoked_at', '>', db.raw(`now() - interval '${ACCESS_TOKEN_TTL_SECONDS + 60} seconds'`))
      .select('grant_id');
    return new Set(rows.map((r) => r.grant_id as string));
  });
}
