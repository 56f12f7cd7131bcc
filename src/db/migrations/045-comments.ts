import type { Knex } from 'knex';

/**
 * The discussion of a listing: comments (one level of replies), one upvote per person and
 * comment, and reports for the site team. A comment's `votes` and a listing's `comment_count` are
 * counters moved in the statement that changes what they count (under the row's lock), like
 * `listings.votes`, so cards and rankings read them without counting rows.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('comments', (t) => {
    t.increments('id');
    t.integer('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
    t.integer('user_id').references('users.id').onDelete('SET NULL');
    // A reply's top-level comment; replies to replies are refused (one level).
    t.integer('parent_id').references('comments.id').onDelete('CASCADE');
    t.text('body').notNullable();
    // visible; held (a new account's, waiting for review); hidden (by the site team, with a reason); deleted (by its author)
    t.text('status').notNullable().defaultTo('visible');
    t.text('hidden_reason');
    t.integer('votes').notNullable().defaultTo(0);
    // Hash of the normalised body: the same text on another listing is refused.
    t.text('body_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('edited_at', { useTz: true });
    t.timestamp('deleted_at', { useTz: true });
    t.index(['listing_id', 'parent_id', 'created_at']);
    t.index(['parent_id']);
    t.index(['user_id', 'body_hash']);
  });
  await db.raw(`ALTER TABLE comments
    ADD CONSTRAINT comments_status CHECK (status IN ('visible', 'held', 'hidden', 'deleted')),
    ADD CONSTRAINT comments_body_len CHECK (char_length(body) <= 5000),
    ADD CONSTRAINT comments_votes CHECK (votes >= 0)`);
  // The moderation queue reads held comments oldest first.
  await db.raw(`CREATE INDEX comments_held ON comments (created_at) WHERE status = 'held'`);

  await db.schema.createTable('comment_votes', (t) => {
    t.integer('comment_id').notNullable().references('comments.id').onDelete('CASCADE');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable();
    // Why the vote counts 0 (a ring detector's reason), or null when it counts: as listing votes.
    t.text('discount_reason');
    t.primary(['comment_id', 'user_id']);
    t.index(['user_id']);
  });

  await db.schema.createTable('comment_reports', (t) => {
    t.increments('id');
    t.integer('comment_id').notNullable().references('comments.id').onDelete('CASCADE');
    t.integer('reporter_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('reason').notNullable();
    t.text('note');
    t.timestamp('created_at', { useTz: true }).notNullable();
    // Set when a moderator decides on the comment (approve, hide, restore).
    t.timestamp('resolved_at', { useTz: true });
    t.integer('resolved_by').references('users.id').onDelete('SET NULL');
    t.unique(['comment_id', 'reporter_id']);
  });
  await db.raw(`ALTER TABLE comment_reports
    ADD CONSTRAINT comment_reports_reason CHECK (reason IN ('spam', 'abuse', 'off_topic', 'other')),
    ADD CONSTRAINT comment_reports_note_len CHECK (char_length(note) <= 500)`);
  await db.raw('CREATE INDEX comment_reports_open ON comment_reports (created_at) WHERE resolved_at IS NULL');

  await db.schema.alterTable('listings', (t) => t.integer('comment_count').notNullable().defaultTo(0));
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('listings', (t) => t.dropColumn('comment_count'));
  await db.schema.dropTableIfExists('comment_reports');
  await db.schema.dropTableIfExists('comment_votes');
  await db.schema.dropTableIfExists('comments');
}
