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
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('oauth_registrations');
}
