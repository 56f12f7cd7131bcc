import type { Knex } from 'knex';

/** Transactional mail outbox: mail is queued with the change that causes it, sent afterwards. */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('mail_outbox', (t) => {
    t.increments('id');
    t.text('to_address').notNullable();
    t.text('subject').notNullable();
    t.text('body_text').notNullable();
    // The same dedupe key is queued once, so a retried activity never mails twice.
    t.text('dedupe_key').unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('sent_at', { useTz: true });
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error');
    t.index(['sent_at', 'id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('mail_outbox');
}
