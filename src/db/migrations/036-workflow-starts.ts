import type { Knex } from 'knex';

/**
 * One outbox for every workflow a write needs (docs/decisions/workflow-start-outbox.md): the write
 * records the start in its own transaction, a dispatcher starts it and deletes the row. `due_at`
 * is when a dispatcher may take it: now, a lease of the process that starts it right after the
 * commit, or the back-off after a failed start. Webhook deliveries waiting for their start move in.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('workflow_starts', (t) => {
    t.bigIncrements('id');
    // draft, order, claim, listing-update, webhook-delivery
    t.text('kind').notNullable();
    t.text('workflow_id').notNullable();
    // What the start needs beyond the kind (the workflow's input and search attributes).
    t.jsonb('input').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error');
    t.timestamp('due_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['due_at', 'id']);
  });
  await db.raw(`
    INSERT INTO workflow_starts (kind, workflow_id, input)
    SELECT 'webhook-delivery', 'webhook-delivery:' || d.id,
           jsonb_build_object('deliveryId', d.id, 'round', d.round, 'listingId', e.listing_id, 'replace', d.round > 0)
      FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
     WHERE d.workflow_started_at IS NULL AND d.status = 'pending'
     ORDER BY d.id`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('workflow_starts');
}
