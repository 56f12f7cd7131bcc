import type { Knex } from 'knex';

/**
 * Votes and the weekly ranking: each listing's launch-week score kept in step
 * with its votes, votes voided for fraud (public, with reasons), frozen weekly results, and
 * notifications that are not about a listing update (e.g. "you finished #2 this week").
 */
export async function up(db: Knex): Promise<void> {
  // Votes cast during the listing's launch week; kept in the same statement as `votes`, so the
  // leaderboard is an index range instead of a count over every vote.
  await db.raw('ALTER TABLE listings ADD COLUMN IF NOT EXISTS week_votes integer NOT NULL DEFAULT 0');
  await db.raw(`CREATE INDEX listings_week_ranking ON listings (site_id, launch_week, week_votes DESC, id) WHERE status = 'live'`);
  // Who voted when, for the weekly close's exact count and the account's own votes.
  await db.raw('CREATE INDEX votes_by_user ON votes (user_id)');

  await db.schema.createTable('voided_votes', (t) => {
    t.increments('id');
    t.integer('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
    t.integer('user_id').references('users.id').onDelete('SET NULL');
    t.timestamp('voted_at', { useTz: true }).notNullable();
    // Whether the vote counted toward the listing's launch-week score when it was removed.
    t.boolean('in_launch_week').notNullable();
    t.text('reason').notNullable();
    t.timestamp('voided_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    // A voided vote is voided once; its account cannot vote on the listing again.
    t.unique(['listing_id', 'user_id']);
  });

  await db.schema.createTable('weekly_results', (t) => {
    t.integer('site_id').notNullable().references('sites.id');
    t.date('week').notNullable().comment('Monday of the ISO week');
    t.integer('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
    t.integer('rank').notNullable();
    t.integer('score').notNullable();
    t.integer('votes_removed').notNullable();
    t.timestamp('closed_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['site_id', 'week', 'listing_id']);
    t.unique(['site_id', 'week', 'rank']);
  });

  // Notifications of other kinds than a listing update carry their own text (IF NOT EXISTS: the
  // launch work may generalise the table the same way).
  await db.raw('ALTER TABLE notifications ALTER COLUMN listing_update_id DROP NOT NULL');
  await db.raw('ALTER TABLE notifications ADD COLUMN IF NOT EXISTS listing_id integer REFERENCES listings(id) ON DELETE CASCADE');
  await db.raw('ALTER TABLE notifications ADD COLUMN IF NOT EXISTS title text');
  await db.raw('ALTER TABLE notifications ADD COLUMN IF NOT EXISTS body text');
  await db.raw('ALTER TABLE notifications ADD COLUMN IF NOT EXISTS dedupe_key text');
  await db.raw('CREATE UNIQUE INDEX IF NOT EXISTS notifications_dedupe_key ON notifications (dedupe_key)');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS notifications_dedupe_key');
  await db.schema.alterTable('notifications', (t) => {
    t.dropColumn('dedupe_key');
    t.dropColumn('body');
    t.dropColumn('title');
    t.dropColumn('listing_id');
  });
  await db.raw('DELETE FROM notifications WHERE listing_update_id IS NULL');
  await db.raw('ALTER TABLE notifications ALTER COLUMN listing_update_id SET NOT NULL');
  await db.schema.dropTableIfExists('weekly_results');
  await db.schema.dropTableIfExists('voided_votes');
  await db.raw('DROP INDEX IF EXISTS votes_by_user');
  await db.raw('DROP INDEX IF EXISTS listings_week_ranking');
  await db.schema.alterTable('listings', (t) => t.dropColumn('week_votes'));
}
