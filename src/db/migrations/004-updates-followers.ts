import type { Knex } from 'knex';

/** Listing updates, followers, in-app notifications, and retry bookkeeping for the mail outbox. */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('listing_updates', (t) => {
    t.increments('id');
    t.integer('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
    // Copied from the listing so that the per-site feed reads one index.
    t.integer('site_id').notNullable().references('sites.id');
    t.integer('author_id').references('users.id').onDelete('SET NULL');
    t.text('title').notNullable();
    t.text('body').notNullable();
    t.timestamp('published_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['listing_id']);
  });
  await db.raw('CREATE INDEX listing_updates_feed ON listing_updates (site_id, published_at DESC, id DESC)');

  await db.schema.createTable('listing_followers', (t) => {
    t.integer('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    // (listing_id, user_id) is also the keyset order of the fan-out.
    t.primary(['listing_id', 'user_id']);
    t.index(['user_id']);
  });
  // Kept in step with listing_followers inside the follow/unfollow transaction, so search reads it for free.
  await db.schema.alterTable('listings', (t) => {
    t.integer('follower_count').notNullable().defaultTo(0);
  });

  await db.schema.createTable('notifications', (t) => {
    t.increments('id');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.integer('listing_update_id').notNullable().references('listing_updates.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    // One notification per follower per update, however often a fan-out batch is retried.
    t.unique(['user_id', 'listing_update_id']);
  });
  await db.raw('CREATE INDEX notifications_by_user ON notifications (user_id, id DESC)');

  await db.schema.alterTable('mail_outbox', (t) => {
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    // Set when the SMTP server refused the mail for good (5xx) or the attempts ran out.
    t.timestamp('failed_at', { useTz: true });
  });
  await db.raw('CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at, id) WHERE sent_at IS NULL AND failed_at IS NULL');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS mail_outbox_due');
  await db.schema.alterTable('mail_outbox', (t) => {
    t.dropColumn('next_attempt_at');
    t.dropColumn('failed_at');
  });
  await db.schema.dropTableIfExists('notifications');
  await db.schema.alterTable('listings', (t) => {
    t.dropColumn('follower_count');
  });
  await db.schema.dropTableIfExists('listing_followers');
  await db.schema.dropTableIfExists('listing_updates');
}
