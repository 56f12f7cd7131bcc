import type { Knex } from 'knex';

/**
 * A refund takes back what its line paid for (placements, billboard days, an unlocked section, a
 * paid launch not live yet): each order line keeps what its refund ended, so the owner's orders
 * page, the refund mail and the `order.refunded` webhook say the same thing, however late they
 * read it. Lines refunded before this migration ended nothing, so an empty list is their truth.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('order_lines', (t) => {
    t.jsonb('ended')
      .notNullable()
      .defaultTo(db.raw(`'[]'::jsonb`))
      .comment('What the refund of this line ended: [{kind, ..., text}] (src/domain/orders/refund-effects.ts)');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('order_lines', (t) => {
    t.dropColumn('ended');
  });
}
