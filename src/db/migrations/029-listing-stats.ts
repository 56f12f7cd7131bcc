import type { Knex } from 'knex';

/**
 * Launch analytics: page views and outbound clicks of each listing, counted per
 * hour without cookies, and where the views came from (the referrer's host, never its URL).
 * One row per listing, hour and referrer host ('' for views without one, and for clicks): the
 * api processes add their buffered counts with one multi-row upsert a second.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('listing_hourly_counts', (t) => {
    t.integer('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
    t.timestamp('hour', { useTz: true }).notNullable().comment('Start of the UTC hour');
    t.text('referrer_host').notNullable().defaultTo('').comment("The referring page's host; '' when none (and for clicks)");
    t.integer('views').notNullable().defaultTo(0);
    t.integer('clicks').notNullable().defaultTo(0);
    t.primary(['listing_id', 'hour', 'referrer_host']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('listing_hourly_counts');
}
