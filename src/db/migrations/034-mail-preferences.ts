import type { Knex } from 'knex';

/**
 * Mail people can stop: one row per kind of mail a person stopped (all of it, or for one listing),
 * and on each outbox row who it is for and what kind it is, so delivery can drop a mail whose
 * recipient stopped its kind after it was queued, and send the List-Unsubscribe headers.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('mail_stops', (t) => {
    t.increments('id');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    // Null: every mail of the kind; else only the mails about this listing.
    t.integer('listing_id').references('listings.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  // One stop per person, kind and listing (or "all"); a repeated unsubscribe inserts nothing.
  await db.raw('CREATE UNIQUE INDEX mail_stops_once ON mail_stops (user_id, kind, coalesce(listing_id, 0))');
  await db.schema.alterTable('mail_outbox', (t) => {
    t.integer('recipient_id').comment('The person a stoppable mail is for; null for transactional mail');
    t.text('mail_kind').comment('The kind of a stoppable mail (mail_stops.kind); null for transactional mail');
    t.integer('listing_id').comment('The listing a stoppable mail is about, when the kind is stopped per listing');
    t.text('list_unsubscribe').comment('The one-click unsubscribe URL sent as List-Unsubscribe');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('mail_outbox', (t) => {
    t.dropColumn('recipient_id');
    t.dropColumn('mail_kind');
    t.dropColumn('listing_id');
    t.dropColumn('list_unsubscribe');
  });
  await db.schema.dropTableIfExists('mail_stops');
}
