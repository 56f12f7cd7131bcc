import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  // Open dynamic client registrations per client address, for the per-address limit.
  await db.schema.createTable('oauth_registrations', (t) => {
    t.bigIncrements('id');
    t.text('ip').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['ip', 'created_at']);
    t.index(['created_at']);
  });
  // Clients registered so far that no person ever granted anything get the 24 hours new ones get.
  await db.raw(`UPDATE oauth_payloads c SET expires_at = now() + interval '24 hours'
    WHERE c.model = 'Client' AND c.expires_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM oauth_payloads g WHERE g.model = 'Grant' AND g.payload->>'clientId' = c.id)`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('oauth_registrations');
}
