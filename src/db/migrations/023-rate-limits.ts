import type { Knex } from 'knex';

/**
 * The store of src/domain/quotas/rate-limit.ts: rate-limiter-flexible's own PostgreSQL layout
 * (key, points, expire in epoch milliseconds), made here so the library never runs DDL. It
 * replaces promo_attempts (whose count-then-insert let concurrent wrong tries past the limit)
 * and oauth_registrations.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('rate_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire');
    t.index(['expire']);
  });
  await db.schema.dropTableIfExists('promo_attempts');
  await db.schema.dropTableIfExists('oauth_registrations');
}

export async function down(db: Knex): Promise<void> {
  await db.schema.createTable('oauth_registrations', (t) => {
    t.bigIncrements('id');
    t.text('ip').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['ip', 'created_at']);
    t.index(['created_at']);
  });
  await db.schema.createTable('promo_attempts', (t) => {
    t.bigIncrements('id');
    t.integer('user_id').notNullable();
    t.text('ip').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['user_id', 'created_at']);
    t.index(['ip', 'created_at']);
  });
  await db.schema.dropTableIfExists('rate_limits');
}
