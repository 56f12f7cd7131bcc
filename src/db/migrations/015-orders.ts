import type { Knex } from 'knex';

/** Orders, their lines, promo codes, payment events, invoices and what paid lines fulfil. */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('promo_codes', (t) => {
    t.increments('id');
    t.integer('site_id').notNullable().references('sites.id');
    t.text('code').notNullable();
    t.integer('percent_bp').comment('Share taken off in basis points (10000 = 100 %)');
    t.integer('amount_cents');
    t.timestamp('starts_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true });
    t.integer('max_redemptions');
    t.integer('per_account');
    t.boolean('first_order_only').notNullable().defaultTo(false);
    t.integer('min_net_cents');
    t.specificType('products', 'text[]');
    t.timestamp('disabled_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  // Matching ignores case and surrounding spaces (codes are stored trimmed).
  await db.raw('CREATE UNIQUE INDEX promo_codes_site_code ON promo_codes (site_id, lower(code))');
  await db.raw('ALTER TABLE promo_codes ADD CONSTRAINT promo_codes_one_kind CHECK ((percent_bp IS NULL) <> (amount_cents IS NULL))');

  await db.schema.createTable('promo_attempts', (t) => {
    t.bigIncrements('id');
    t.integer('user_id').notNullable();
    t.text('ip').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['user_id', 'created_at']);
    t.index(['ip', 'created_at']);
  });

  await db.schema.createTable('orders', (t) => {
    t.increments('id');
    t.integer('site_id').notNullable().references('sites.id');
    t.integer('user_id').notNullable().references('users.id');
    t.text('number').notNullable().unique();
    t.text('checkout_token').notNullable().unique();
    t.text('status').notNullable().defaultTo('pending');
    t.text('currency').notNullable().defaultTo('USD');
    t.jsonb('quote').notNullable();
    t.jsonb('billing').notNullable();
    t.jsonb('vat_check');
    t.integer('total_cents').notNullable();
    t.integer('promo_code_id').references('promo_codes.id');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.text('payment_method');
    t.text('payment_id').comment("The provider's id of the payment that paid the order");
    t.integer('paid_cents');
    t.text('paid_currency');
    t.timestamp('paid_at', { useTz: true });
    t.integer('invoice_number');
    t.text('attention_reason');
    t.timestamp('fulfilled_at', { useTz: true });
    t.timestamps(true, true);
    t.unique(['site_id', 'invoice_number']);
  });
  await db.raw('CREATE INDEX orders_by_user ON orders (user_id, id DESC)');

  await db.schema.createTable('order_lines', (t) => {
    t.increments('id');
    t.integer('order_id').notNullable().references('orders.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.text('product').notNullable();
    t.integer('listing_id').references('listings.id');
    t.jsonb('options').notNullable().defaultTo('{}');
    t.integer('unit_cents').notNullable();
    t.integer('discount_cents').notNullable();
    t.integer('net_cents').notNullable();
    t.integer('vat_cents').notNullable();
    t.timestamp('fulfilled_at', { useTz: true });
    t.timestamp('refunded_at', { useTz: true });
    t.unique(['order_id', 'position']);
  });

  await db.schema.createTable('promo_redemptions', (t) => {
    t.increments('id');
    t.integer('promo_code_id').notNullable().references('promo_codes.id');
    t.integer('order_id').notNullable().unique().references('orders.id').onDelete('CASCADE');
    t.integer('user_id').notNullable();
    t.text('state').notNullable().defaultTo('reserved').comment('reserved | counted | released');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['promo_code_id', 'state']);
  });

  // Gap-free invoice numbers per site: the row is locked in the transaction that marks an order paid.
  await db.schema.createTable('invoice_sequences', (t) => {
    t.integer('site_id').primary().references('sites.id');
    t.integer('last_number').notNullable().defaultTo(0);
  });

  await db.schema.createTable('payment_events', (t) => {
    t.bigIncrements('id');
    t.text('provider').notNullable();
    t.text('provider_event_id').notNullable();
    t.text('type').notNullable();
    t.text('order_number');
    t.jsonb('payload').notNullable();
    t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.unique(['provider', 'provider_event_id']);
  });

  // The test provider's payments (its "API state"); the stripe adapter keeps none here.
  await db.schema.createTable('test_payments', (t) => {
    t.text('id').primary();
    t.text('order_number').notNullable();
    t.text('method').notNullable();
    t.text('status').notNullable();
    t.integer('amount_cents').notNullable();
    t.text('currency').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['order_number']);
  });

  await db.schema.createTable('refunds', (t) => {
    t.increments('id');
    t.integer('order_id').notNullable().references('orders.id');
    t.integer('order_line_id').references('order_lines.id');
    t.integer('amount_cents').notNullable();
    t.text('reason').notNullable();
    t.text('provider_refund_id');
    t.text('dedupe_key').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });

  await db.schema.createTable('featured_placements', (t) => {
    t.integer('order_line_id').notNullable().references('order_lines.id');
    t.integer('site_id').notNullable().references('sites.id');
    t.integer('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
    t.date('week_start').notNullable();
    t.primary(['order_line_id', 'week_start']);
    t.index(['site_id', 'week_start']);
  });

  await db.schema.createTable('category_placements', (t) => {
    t.integer('order_line_id').notNullable().references('order_lines.id');
    t.integer('site_id').notNullable().references('sites.id');
    t.integer('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
    t.text('category').notNullable();
    t.primary(['order_line_id', 'category']);
    t.index(['site_id', 'category']);
  });

  await db.schema.createTable('billboard_days', (t) => {
    t.integer('site_id').notNullable().references('sites.id');
    t.date('day').notNullable();
    t.integer('order_line_id').notNullable().references('order_lines.id');
    t.integer('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
    // One billboard a day per site: a second booking of the same day cannot be written.
    t.primary(['site_id', 'day']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of [
    'billboard_days',
    'category_placements',
    'featured_placements',
    'refunds',
    'test_payments',
    'payment_events',
    'invoice_sequences',
    'promo_redemptions',
    'order_lines',
    'orders',
    'promo_attempts',
    'promo_codes',
  ]) {
    await db.schema.dropTableIfExists(table);
  }
}
