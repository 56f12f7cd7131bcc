import type { Knex } from 'knex';

/**
 * Listing logos, preview images and generated card images, stored in PostgreSQL so every api
 * process serves them (the media port, src/domain/media/media-port.ts). A file's key is its path
 * under /media, named by a hash of its content (or, for a card, of what it shows), so a stored
 * file never changes. `listings.logo_url` / `image_url` and a draft's fields now hold such paths:
 * the website addresses they held before were never shown, and are dropped (the evidence keeps them).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('media_files', (t) => {
    t.text('key').primary();
    t.text('content_type').notNullable();
    t.binary('body').notNullable();
    t.text('etag').notNullable();
    t.integer('width').notNullable();
    t.integer('height').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db('listings').whereNotNull('logo_url').whereNot('logo_url', 'like', '/media/%').update({ logo_url: null });
  await db('listings').whereNotNull('image_url').whereNot('image_url', 'like', '/media/%').update({ image_url: null });
  await db.raw(
    `UPDATE drafts SET fields = fields || '{"logo_url": null, "image_url": null}'::jsonb
      WHERE fields IS NOT NULL AND (fields->>'logo_url' IS NOT NULL OR fields->>'image_url' IS NOT NULL)`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('media_files');
}
