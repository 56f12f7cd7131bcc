import type { Knex } from 'knex';

/**
 * People hear about the discussion: a notification per reply to one's comment and per comment on
 * one's listing (one per comment and person), read marks, and the one pending mail batch per person
 * (its due time), so comment mail comes at most once a window however many answers arrive.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('notifications', (t) => {
    t.integer('comment_id').references('comments.id').onDelete('CASCADE');
    // Null while unread; the header counts these.
    t.timestamp('read_at', { useTz: true });
    t.unique(['user_id', 'comment_id']);
  });
  // The header's unread count on every signed-in page: one index-only count.
  await db.raw('CREATE INDEX notifications_unread ON notifications (user_id) WHERE read_at IS NULL');
  await db.schema.createTable('notification_mail_batches', (t) => {
    t.integer('user_id').primary().references('users.id').onDelete('CASCADE');
    // When the person's held comment notifications are mailed, in one mail.
    t.timestamp('due_at', { useTz: true }).notNullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('notification_mail_batches');
  await db.raw('DROP INDEX IF EXISTS notifications_unread');
  await db.schema.alterTable('notifications', (t) => {
    t.dropUnique(['user_id', 'comment_id']);
    t.dropColumn('read_at');
    t.dropColumn('comment_id');
  });
}
