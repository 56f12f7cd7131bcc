import type { Knex } from 'knex';

/**
 * Sign-in failures and the check cooldowns moved onto the shared rate limiter (table
 * `rate_limits`, src/domain/quotas/rate-limit.ts): their own tables and columns go.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('signin_attempts');
  await db.schema.alterTable('claims', (t) => t.dropColumn('last_requested_check_at'));
  await db.schema.alterTable('listing_badges', (t) => t.dropColumn('requested_at'));
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('listing_badges', (t) => t.timestamp('requested_at', { useTz: true }));
  await db.schema.alterTable('claims', (t) => t.timestamp('last_requested_check_at', { useTz: true }));
  await db.schema.createTable('signin_attempts', (t) => {
    t.bigIncrements('id');
    t.specificType('email', 'citext').notNullable();
    t.text('ip').notNullable();
    t.text('outcome').notNullable().defaultTo('pending');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['email', 'created_at']);
    t.index(['ip', 'created_at']);
    t.index(['created_at']);
  });
}
