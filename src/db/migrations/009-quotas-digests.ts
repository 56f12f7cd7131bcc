import type { Knex } from 'knex';

/** What the request quotas count by (so one API key cannot flood a site with crawls or an inbox with mail), and the state of the follower-mail throttle. */
export async function up(db: Knex): Promise<void> {
  // Drafts per owner per hour and updates per listing per hour are counted over these.
  await db.raw('CREATE INDEX drafts_by_owner_created ON drafts (owner_id, created_at)');
  await db.raw('CREATE INDEX listing_updates_by_listing_published ON listing_updates (listing_id, published_at)');
  await db.schema.alterTable('listing_followers', (t) => {
    // When this follower was last mailed about this listing: at most one mail per window.
    t.timestamp('last_mailed_at', { useTz: true });
    // Set while updates wait for a digest: when the window of the last mail ends.
    t.timestamp('digest_due_at', { useTz: true });
  });
  await db.schema.alterTable('notifications', (t) => {
    // The update was not mailed at once (window still open): it goes into the next digest.
    t.boolean('mail_pending').notNullable().defaultTo(false);
  });
  await db.raw('CREATE INDEX notifications_mail_pending ON notifications (user_id) WHERE mail_pending');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS notifications_mail_pending');
  await db.schema.alterTable('notifications', (t) => {
    t.dropColumn('mail_pending');
  });
  await db.schema.alterTable('listing_followers', (t) => {
    t.dropColumn('last_mailed_at');
    t.dropColumn('digest_due_at');
  });
  await db.raw('DROP INDEX IF EXISTS listing_updates_by_listing_published');
  await db.raw('DROP INDEX IF EXISTS drafts_by_owner_created');
}
