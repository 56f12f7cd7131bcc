import type { Knex } from 'knex';

/**
 * A listing the site team unlists keeps why (the owner reads it on their listing page) and the
 * status it had, which a restore gives back. A badge-grace unlisting leaves both null.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('listings', (t) => {
    t.text('unlisted_reason').nullable().comment('Why the site team unlisted it, as told to the owner; null otherwise');
    t.text('status_before_unlisted').nullable().comment('The status a staff restore gives back; null when not unlisted by staff');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('listings', (t) => {
    t.dropColumn('unlisted_reason');
    t.dropColumn('status_before_unlisted');
  });
}
