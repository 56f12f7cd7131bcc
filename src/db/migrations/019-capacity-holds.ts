import type { Knex } from 'knex';

/**
 * Capacity an order holds from create_checkout until it is paid and fulfilled (so nothing is sold twice): a
 * week's paid launch slot (`launch`, one row per line) or a billboard day (`billboard`, one row per
 * day). A hold counts only while its order can still be paid or is paid and not yet fulfilled (see
 * ACTIVE_HOLD in domain/orders/capacity-holds.ts); expiry, cancelation, fulfilment and refunds also
 * delete the rows, so the table stays small.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('capacity_holds', (t) => {
    t.increments('id');
    t.integer('order_id').notNullable().references('orders.id').onDelete('CASCADE');
    t.integer('order_line_id').notNullable().references('order_lines.id').onDelete('CASCADE');
    t.integer('site_id').notNullable().references('sites.id');
    t.text('kind').notNullable();
    t.integer('listing_id').references('listings.id').onDelete('CASCADE');
    t.date('week_start');
    t.date('day');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['site_id', 'week_start']);
    t.index(['site_id', 'day']);
    t.index(['order_id']);
    t.index(['order_line_id']);
  });
  await db.raw(`ALTER TABLE capacity_holds ADD CONSTRAINT capacity_holds_kind CHECK (
    (kind = 'launch' AND week_start IS NOT NULL AND listing_id IS NOT NULL AND day IS NULL)
    OR (kind = 'billboard' AND day IS NOT NULL AND week_start IS NULL))`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('capacity_holds');
}
