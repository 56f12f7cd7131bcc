import type { Knex } from 'knex';

/** Launch weeks and their slots, badge checks, and owner notifications about launches. */
export async function up(db: Knex): Promise<void> {
  // One row per site and ISO week: the row whose lock serialises slot bookings of that week.
  await db.schema.createTable('launch_weeks', (t) => {
    t.integer('site_id').notNullable().references('sites.id');
    t.date('week_start').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['site_id', 'week_start']);
  });
  // A listing holds at most one slot; its id orders the week's queue (queue_position).
  await db.schema.createTable('launch_slots', (t) => {
    t.increments('id');
    t.integer('listing_id').notNullable().unique().references('listings.id').onDelete('CASCADE');
    t.integer('site_id').notNullable();
    t.date('week_start').notNullable();
    t.text('kind').notNullable();
    t.timestamp('taken_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.foreign(['site_id', 'week_start']).references(['site_id', 'week_start']).inTable('launch_weeks');
    t.index(['site_id', 'week_start', 'kind']);
  });
  await db.raw(`ALTER TABLE launch_slots ADD CONSTRAINT launch_slots_kind CHECK (kind IN ('free', 'paid'))`);

  // The badge state of a listing: where to look, the last result and since when it is missing.
  await db.schema.createTable('listing_badges', (t) => {
    t.integer('listing_id').primary().references('listings.id').onDelete('CASCADE');
    t.text('badge_url');
    t.text('status').notNullable().defaultTo('unchecked');
    t.timestamp('checked_at', { useTz: true });
    t.timestamp('missing_since', { useTz: true });
    t.text('detail');
    // Set when the owner was told about a badge missing beyond the grace period.
    t.timestamp('grace_notified_at', { useTz: true });
    // Last owner-asked check (recheck_badge is limited to one per 10 s).
    t.timestamp('requested_at', { useTz: true });
  });
  // Every check, kept: support sees what we fetched and why it counted as it did.
  await db.schema.createTable('badge_checks', (t) => {
    t.bigIncrements('id');
    t.integer('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
    t.text('trigger').notNullable();
    t.text('url').notNullable();
    t.text('final_url');
    t.integer('http_status');
    t.text('status').notNullable();
    t.text('detail').notNullable();
    t.specificType('rel', 'text[]').notNullable().defaultTo('{}');
    t.timestamp('checked_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['listing_id', 'checked_at']);
  });

  // Notifications about one's own listing's launch, next to the update notifications.
  await db.schema.alterTable('notifications', (t) => {
    t.integer('listing_id').references('listings.id').onDelete('CASCADE');
    t.text('title');
    t.text('body');
    t.text('dedupe_key');
  });
  await db.raw('CREATE UNIQUE INDEX notifications_dedupe_key ON notifications (dedupe_key)');
  await db.raw('ALTER TABLE notifications ALTER COLUMN listing_update_id DROP NOT NULL');
}

export async function down(db: Knex): Promise<void> {
  await db('notifications').whereNull('listing_update_id').delete();
  await db.raw('ALTER TABLE notifications ALTER COLUMN listing_update_id SET NOT NULL');
  await db.schema.alterTable('notifications', (t) => {
    t.dropColumn('listing_id');
    t.dropColumn('title');
    t.dropColumn('body');
    t.dropColumn('dedupe_key');
  });
  for (const table of ['badge_checks', 'listing_badges', 'launch_slots', 'launch_weeks']) await db.schema.dropTableIfExists(table);
}
