import type { Knex } from 'knex';

/**
 * The pay page's payment attempts: one row per press of Pay that reached the provider's door.
 * At most one attempt of an order is open at a time (charging, waiting for the payer's step at
 * the provider, processing, or succeeded), enforced by a partial unique index, so concurrent
 * submissions from several tabs or api processes agree on which one charges. A declined,
 * released (nothing charged) or abandoned (stale) attempt is closed and lets the next one begin.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('payment_attempts', (t) => {
    t.increments('id');
    t.integer('order_id').notNullable().references('orders.id').onDelete('CASCADE');
    t.text('state').notNullable();
    t.text('provider_payment_id');
    t.text('message');
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['order_id', 'id']);
  });
  await db.raw(`ALTER TABLE payment_attempts ADD CONSTRAINT payment_attempts_state CHECK (
    state IN ('charging', 'action', 'processing', 'succeeded', 'declined', 'released', 'abandoned'))`);
  await db.raw(`CREATE UNIQUE INDEX payment_attempts_one_open ON payment_attempts (order_id)
    WHERE state IN ('charging', 'action', 'processing', 'succeeded')`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('payment_attempts');
}
