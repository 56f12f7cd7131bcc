import type { Adapter, AdapterPayload } from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { Db } from '../../db/knex.ts';
import { assertStorablePayload } from './stored-text.ts';

const TABLE = 'oauth_payloads';

/** A registered client that no person has granted anything within this expires. */
export const UNUSED_CLIENT_TTL_SECONDS = 24 * 3600;

/**
 * oidc-provider's storage in PostgreSQL: one row per model instance, expired rows are never
 * returned and are purged now and then, so any api process can continue any flow. Clients from
 * open registration expire unless used: their first grant keeps them.
 */
export function postgresAdapter(db: Db) {
  return class PostgresAdapter implements Adapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      if (this.model === 'Client' && !expiresIn) expiresIn = UNUSED_CLIENT_TTL_SECONDS;
      assertStorablePayload(this.model, payload);
      await db(TABLE)
        .insert({
          model: this.model,
          id,
          payload,
          grant_id: payload.grantId ?? null,
          user_code: payload.userCode ?? null,
          uid: payload.uid ?? null,
          expires_at: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
        })
        .onConflict(['model', 'id'])
        .merge();
      if (this.model === 'Grant' && payload.clientId) await keepClient(db, payload.clientId);
      // Cheap housekeeping instead of a scheduled job: on every registration (so unused clients do
      // not pile up however many are registered) and now and then.
      if (this.model === 'Client' || Math.random() < 0.01) await purgeExpiredOAuthRows(db);
    }

    find(id: string) {
      return this.findBy({ id });
    }

    findByUid(uid: string) {
      return this.findBy({ uid });
    }

    findByUserCode(userCode: string) {
      return this.findBy({ user_code: userCode });
    }

    async consume(id: string): Promise<void> {
      await db(TABLE).where({ model: this.model, id }).update({ consumed_at: db.fn.now() });
    }

    async destroy(id: string): Promise<void> {
      await db(TABLE).where({ model: this.model, id }).delete();
    }

    /** Every revocation path of the provider (code or refresh token reuse, /oauth/revoke) ends here. */
    async revokeByGrantId(grantId: string): Promise<void> {
      await db.transaction(async (trx) => {
        // JWT access tokens are not stored: resource servers learn of the revocation from this row.
        await trx('oauth_revoked_grants').insert({ grant_id: grantId }).onConflict('grant_id').ignore();
        await trx(TABLE).where({ grant_id: grantId }).delete();
      });
    }

    private async findBy(where: Record<string, string>): Promise<AdapterPayload | undefined> {
      // A NUL cannot be in the table (PostgreSQL refuses it in text): the request is malformed, not "not found".
      if (Object.values(where).some((v) => typeof v === 'string' && v.includes('\0'))) {
        throw new errors.InvalidRequest('a parameter contains a NUL character');
      }
      const row = await db(TABLE)
        .where({ model: this.model, ...where })
        .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', db.fn.now()))
        .first('payload', 'consumed_at');
      if (!row) return undefined;
      return row.consumed_at ? { ...row.payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) } : row.payload;
    }
  };
}

/** A client that got a grant is in use: it no longer expires. */
async function keepClient(db: Db, clientId: string): Promise<void> {
  await db(TABLE).where({ model: 'Client', id: clientId }).whereNotNull('expires_at').update({ expires_at: null });
}

/** Deletes expired rows (unused clients included); returns how many. */
export async function purgeExpiredOAuthRows(db: Db): Promise<number> {
  return db(TABLE).where('expires_at', '<', db.fn.now()).delete();
}
