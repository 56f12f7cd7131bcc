import type { Knex } from 'knex';

/**
 * The columns search reads: the index's (site, status, votes, and the sources of the three
 * search vectors: name, url, headline, summary) and the public columns a result shows
 * (PUBLIC_COLUMNS in src/domain/listings/listing-row.ts), which the in-memory engine keeps
 * between searches. test/search/search-changes.test.ts checks the list against PUBLIC_COLUMNS.
 */
export const SEARCHED_COLUMNS = [
  'site_id',
  'status',
  'votes',
  'name',
  'url',
  'headline',
  'summary',
  'slug',
  'seo_title',
  'seo_description',
  'logo_url',
  'image_url',
  'facts',
  'socials',
  'faqs',
  'categories',
  'follower_count',
] as const;

/**
 * Updates of listings log a search change (018) only when a column search reads changed: an
 * owner's plan, evidence or contact address, or `updated_at` alone, no longer make every api
 * process forget the listing's row and its remembered answers. Why not `UPDATE OF columns`:
 * PostgreSQL refuses transition tables on a trigger with a column list, and statement
 * triggers keep bulk writes (votes) to one insert each; so the update trigger compares each
 * row's old and new values of those columns itself, as a row trigger's WHEN clause would.
 */
export async function up(db: Knex): Promise<void> {
  const old = SEARCHED_COLUMNS.map((c) => `o.${c}`).join(', ');
  const now = SEARCHED_COLUMNS.map((c) => `n.${c}`).join(', ');
  await db.raw(`
    CREATE FUNCTION listings_search_changes_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO search_changes (listing_id)
        SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE (${old}) IS DISTINCT FROM (${now});
      RETURN NULL;
    END $$`);
  await db.raw('DROP TRIGGER listings_search_changes_update ON listings');
  await db.raw(`CREATE TRIGGER listings_search_changes_update AFTER UPDATE ON listings
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION listings_search_changes_on_update()`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TRIGGER listings_search_changes_update ON listings');
  await db.raw(`CREATE TRIGGER listings_search_changes_update AFTER UPDATE ON listings
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION listings_search_changes()`);
  await db.raw('DROP FUNCTION listings_search_changes_on_update()');
}
