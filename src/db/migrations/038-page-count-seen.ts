import type { Knex } from 'knex';

/**
 * Views and clicks count once per client, listing and hour: each counted one leaves a keyed hash
 * of (kind, listing, hour, client address) here, so that every api process agrees on what was
 * counted without storing the address. The hashes are purged after two hours, the daily keys
 * (app_secrets `page-count:{day}`) after two days, so no one can later test an address against them.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('page_count_seen', (t) => {
    t.binary('seen').primary().comment('HMAC-SHA256 of kind, listing slug, hour and client address with the day’s key');
    t.timestamp('hour', { useTz: true }).notNullable().index().comment('The UTC hour the view or click was counted in');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('page_count_seen');
}
