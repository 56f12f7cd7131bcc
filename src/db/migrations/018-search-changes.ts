import type { Knex } from 'knex';

/**
 * `search_changes`: which listings changed, by transaction, so each api process keeps its
 * in-memory search index in step with one indexed probe per search. A transaction's id (not a
 * sequence) marks the change: every change a snapshot cannot see yet belongs to a transaction
 * at or after that snapshot's xmin, so polling from the last xmin misses nothing, however
 * transactions commit out of order. Statement triggers keep bulk writes to one insert each;
 * deletes are logged too (the listing drops out), and featured placements log their listing.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`CREATE TABLE search_changes (
    xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
    listing_id integer NOT NULL,
    at timestamptz NOT NULL DEFAULT now())`);
  await db.raw('CREATE INDEX search_changes_xid ON search_changes (xid)');
  await db.raw('CREATE INDEX search_changes_at ON search_changes (at)');
  for (const [table, column] of [
    ['listings', 'id'],
    ['featured_placements', 'listing_id'],
  ] as const) {
    await db.raw(`
      CREATE FUNCTION ${table}_search_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          INSERT INTO search_changes (listing_id) SELECT DISTINCT ${column} FROM old_rows;
        ELSE
          INSERT INTO search_changes (listing_id) SELECT DISTINCT ${column} FROM new_rows;
        END IF;
        RETURN NULL;
      END $$`);
    for (const [event, transition] of [
      ['INSERT', 'NEW TABLE AS new_rows'],
      ['UPDATE', 'NEW TABLE AS new_rows'],
      ['DELETE', 'OLD TABLE AS old_rows'],
    ]) {
      await db.raw(`CREATE TRIGGER ${table}_search_changes_${event.toLowerCase()} AFTER ${event} ON ${table}
        REFERENCING ${transition} FOR EACH STATEMENT EXECUTE FUNCTION ${table}_search_changes()`);
    }
  }
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['listings', 'featured_placements']) {
    for (const event of ['insert', 'update', 'delete']) await db.raw(`DROP TRIGGER ${table}_search_changes_${event} ON ${table}`);
    await db.raw(`DROP FUNCTION ${table}_search_changes()`);
  }
  await db.raw('DROP TABLE search_changes');
}
