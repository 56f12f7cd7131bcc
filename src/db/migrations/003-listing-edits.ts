import type { Knex } from 'knex';

/** Version history of listing edits, and dated milestones of a listing. */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('listing_versions', (t) => {
    t.increments('id');
    t.integer('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
    // Kept when the account goes: the history must outlive the editor.
    t.integer('editor_id').references('users.id').onDelete('SET NULL');
    t.text('operation').notNullable();
    // Set when the change travelled here by apply_to from another listing of the same company.
    t.integer('source_listing_id').references('listings.id').onDelete('SET NULL');
    t.text('request_id');
    // { field: { before, after } } of the changed fields only.
    t.jsonb('changes').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['listing_id', 'id']);
    t.index(['created_at']);
  });

  await db.schema.createTable('milestones', (t) => {
    t.increments('id');
    t.integer('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
    t.date('date').notNullable();
    t.text('title').notNullable();
    t.text('description');
    t.text('url');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['listing_id', 'date']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('milestones');
  await db.schema.dropTableIfExists('listing_versions');
}
