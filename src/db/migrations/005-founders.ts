import type { Knex } from 'knex';

/**
 * Founder content: one profile and photo per user, interview answers per user and question,
 * one story per listing. The length CHECKs repeat the API limits as a last line of defence.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('founder_profiles', (t) => {
    t.integer('user_id').primary().references('users.id').onDelete('CASCADE');
    t.text('display_name');
    t.text('bio');
    t.jsonb('links').notNullable().defaultTo('[]');
    t.timestamps(true, true);
  });
  await db.raw(`ALTER TABLE founder_profiles
    ADD CONSTRAINT founder_profiles_display_name_len CHECK (char_length(display_name) <= 80),
    ADD CONSTRAINT founder_profiles_bio_len CHECK (char_length(bio) <= 2000)`);

  // Kept apart from the profile so profile reads never drag the image bytes along.
  await db.schema.createTable('founder_photos', (t) => {
    t.integer('user_id').primary().references('users.id').onDelete('CASCADE');
    t.binary('image').notNullable();
    t.text('etag').notNullable();
    t.integer('width').notNullable();
    t.integer('height').notNullable();
    t.text('source_format').notNullable();
    t.integer('source_bytes').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });

  await db.schema.createTable('interview_answers', (t) => {
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.integer('question_id').notNullable().references('interview_questions.id').onDelete('CASCADE');
    t.text('answer').notNullable();
    t.timestamps(true, true);
    t.primary(['user_id', 'question_id']);
    t.index(['question_id']);
  });
  await db.raw(`ALTER TABLE interview_answers
    ADD CONSTRAINT interview_answers_len CHECK (char_length(answer) BETWEEN 1 AND 2000)`);

  await db.schema.createTable('founder_stories', (t) => {
    t.integer('listing_id').primary().references('listings.id').onDelete('CASCADE');
    t.text('title');
    for (const section of ['how_started', 'problem', 'what_built', 'hard_parts', 'milestones', 'whats_next']) {
      t.text(section);
    }
    t.timestamp('published_at', { useTz: true });
    t.timestamps(true, true);
  });
  await db.raw(`ALTER TABLE founder_stories
    ADD CONSTRAINT founder_stories_title_len CHECK (char_length(title) <= 120)`);
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['founder_stories', 'interview_answers', 'founder_photos', 'founder_profiles']) {
    await db.schema.dropTableIfExists(table);
  }
}
