import type { Knex } from 'knex';

/**
 * `search_lexemes`: every lexeme of a live listing's `search` vector (name and web address
 * unstemmed, headline and summary stemmed). Search expands each typed prefix into the lexemes
 * it starts, so the text indexes look up whole entries instead of scanning every entry with
 * that prefix (ten times slower for common words). Lexemes are only added: a stale one costs
 * one index probe that finds nothing.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`CREATE TABLE search_lexemes (lexeme text COLLATE "C" PRIMARY KEY)`);
  await db.raw(`
    CREATE FUNCTION listings_search_lexemes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.status = 'live' THEN
        INSERT INTO search_lexemes (lexeme) SELECT unnest(tsvector_to_array(NEW.search)) ON CONFLICT DO NOTHING;
      END IF;
      RETURN NULL;
    END $$`);
  await db.raw(`CREATE TRIGGER listings_search_lexemes AFTER INSERT OR UPDATE OF status, name, url, headline, summary ON listings
    FOR EACH ROW EXECUTE FUNCTION listings_search_lexemes()`);
  await db.raw(`INSERT INTO search_lexemes (lexeme)
    SELECT DISTINCT unnest(tsvector_to_array(search)) FROM listings WHERE status = 'live' ON CONFLICT DO NOTHING`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TRIGGER listings_search_lexemes ON listings');
  await db.raw('DROP FUNCTION listings_search_lexemes()');
  await db.raw('DROP TABLE search_lexemes');
}
