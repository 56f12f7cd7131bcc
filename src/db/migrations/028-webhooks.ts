import type { Knex } from 'knex';

/**
 * Owners' webhooks: endpoints, the events about an owner's listings and orders, one
 * delivery per event and endpoint (unique), and every attempt of a delivery. The signing secret
 * is stored encrypted (AES-256-GCM with an app secret), not hashed: signing needs it in clear.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('webhook_endpoints', (t) => {
    t.increments('id');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.text('description');
    t.specificType('events', 'text[]').notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.binary('secret_box').notNullable();
    // Set by the first failed attempt after a success; cleared by a success.
    t.timestamp('failing_since', { useTz: true });
    t.timestamp('disabled_at', { useTz: true });
    t.text('disabled_reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['user_id', 'id']);
  });
  await db.schema.createTable('webhook_events', (t) => {
    t.increments('id');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.integer('listing_id').references('listings.id').onDelete('SET NULL');
    // {type, created_at, data}: exactly the body every endpoint gets.
    t.jsonb('payload').notNullable();
    // One event per moment, however often the step that emits it is retried.
    t.text('dedupe_key').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.schema.createTable('webhook_deliveries', (t) => {
    t.increments('id');
    t.integer('event_id').notNullable().references('webhook_events.id').onDelete('CASCADE');
    t.integer('endpoint_id').notNullable().references('webhook_endpoints.id').onDelete('CASCADE');
    // pending, succeeded or failed
    t.text('status').notNullable().defaultTo('pending');
    // Bumped by each redelivery; a workflow of an older round stops.
    t.integer('round').notNullable().defaultTo(0);
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('last_status_code');
    t.text('last_error');
    t.timestamp('first_attempt_at', { useTz: true });
    t.timestamp('last_attempt_at', { useTz: true });
    t.timestamp('next_attempt_at', { useTz: true });
    t.timestamp('succeeded_at', { useTz: true });
    // Null until the delivery's workflow was started (the dispatcher starts the ones left).
    t.timestamp('workflow_started_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.unique(['event_id', 'endpoint_id']);
    t.index(['endpoint_id', 'id']);
  });
  await db.raw('CREATE INDEX webhook_deliveries_unstarted ON webhook_deliveries (id) WHERE workflow_started_at IS NULL');
  await db.schema.createTable('webhook_attempts', (t) => {
    t.increments('id');
    t.integer('delivery_id').notNullable().references('webhook_deliveries.id').onDelete('CASCADE');
    t.integer('round').notNullable();
    t.boolean('ok').notNullable();
    t.integer('status_code');
    t.text('error');
    t.integer('duration_ms').notNullable();
    t.timestamp('attempted_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['delivery_id', 'id']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_events', 'webhook_endpoints'])
    await db.schema.dropTableIfExists(table);
}
