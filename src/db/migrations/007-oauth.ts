import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  // oidc-provider models (clients, grants, codes, refresh tokens, sessions, interactions).
  await db.schema.createTable('oauth_payloads', (t) => {
    t.text('model').notNullable();
    t.text('id').notNullable();
    t.jsonb('payload').notNullable();
    t.text('grant_id');
    t.text('user_code');
    t.text('uid');
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('consumed_at', { useTz: true });
    t.primary(['model', 'id']);
    t.index(['grant_id']);
    t.index(['uid']);
    t.index(['user_code']);
    t.index(['expires_at']);
  });
  await db.raw(`CREATE INDEX oauth_grants_by_account ON oauth_payloads ((payload->>'accountId')) WHERE model = 'Grant'`);
  // Revoked grants, read by every api process into a small in-memory set: JWT access tokens
  // of a revoked grant are refused without a database query per call.
  await db.schema.createTable('oauth_revoked_grants', (t) => {
    t.text('grant_id').primary();
    t.timestamp('revoked_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['revoked_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('oauth_revoked_grants');
  await db.schema.dropTableIfExists('oauth_payloads');
}
