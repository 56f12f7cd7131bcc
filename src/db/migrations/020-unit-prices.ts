import type { Knex } from 'knex';

/**
 * Prices per unit: an order line carries its unit, quantity and unit price, and the
 * listing's name as it was when bought (invoices must not change when a listing is renamed).
 * `unit_cents` held the line's price before discount; it is now `amount_cents` (quantity × unit
 * price). Lines bought before are one unit at their price.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('order_lines', (t) => {
    t.renameColumn('unit_cents', 'amount_cents');
  });
  await db.schema.alterTable('order_lines', (t) => {
    t.text('unit').notNullable().defaultTo('item').comment('week | day | category | item');
    t.integer('quantity').notNullable().defaultTo(1);
    t.integer('unit_price_cents');
    t.text('listing_name');
  });
  await db.raw(`UPDATE order_lines SET unit_price_cents = amount_cents`);
  await db.raw(`UPDATE order_lines l SET listing_name = s.name FROM listings s WHERE s.id = l.listing_id`);
  await db.raw(`ALTER TABLE order_lines ALTER COLUMN unit_price_cents SET NOT NULL`);
  await db.raw(`ALTER TABLE order_lines ADD CONSTRAINT order_lines_amount CHECK (amount_cents = quantity * unit_price_cents)`);
  // Prices and texts an admin never changed follow the new seed: the old flat billboard price
  // read per day would have cost 7 to 90 times what it did.
  await db('products').where({ key: 'billboard', price_cents: 1900 }).update({ price_cents: 1500 });
  for (const [key, before, after] of DESCRIPTIONS) await db('products').where({ key, description: before }).update({ description: after });
}

export async function down(db: Knex): Promise<void> {
  for (const [key, before, after] of DESCRIPTIONS) await db('products').where({ key, description: after }).update({ description: before });
  await db('products').where({ key: 'billboard', price_cents: 1500 }).update({ price_cents: 1900 });
  await db.raw(`ALTER TABLE order_lines DROP CONSTRAINT order_lines_amount`);
  await db.schema.alterTable('order_lines', (t) => {
    t.dropColumns('unit', 'quantity', 'unit_price_cents', 'listing_name');
  });
  await db.schema.alterTable('order_lines', (t) => {
    t.renameColumn('amount_cents', 'unit_cents');
  });
}

/** [product, seeded description before, after]: the new ones say what a unit is. */
const DESCRIPTIONS: [string, string, string][] = [
  ['featured', 'Pinned above the weekly ranking for 1 to 12 weeks.', 'Pinned above the weekly ranking; priced per week, 1 to 12 weeks.'],
  [
    'categories',
    'Listed at the top of up to 5 categories.',
    'Listed at the top of the categories you choose; priced per category, up to 5.',
  ],
  [
    'billboard',
    'The banner on every page of the site for the days you book.',
    'The banner on every page of the site; priced per day you book.',
  ],
];
