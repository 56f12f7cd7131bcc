import type { Knex } from 'knex';

/**
 * The test provider's payments remember whether their card takes refunds (Stripe's test card
 * 4000 0000 0000 5126), so a refund the provider refuses can be exercised end to end.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('test_payments', (t) => {
    t.boolean('refunds_refused').notNullable().defaultTo(false);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('test_payments', (t) => {
    t.dropColumn('refunds_refused');
  });
}
