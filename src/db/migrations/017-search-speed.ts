import type { Knex } from 'knex';

/**
 * `listings_live_votes_search` (below) and `search_lexemes`: every lexeme of a live listing's `search` vector (name and web address
 * unstemmed, headline and summary stemmed). Search expands each typed prefix into the lexemes
 * it starts, so the text indexes look up whole entries instead of scanning every entry with
 * that prefix (ten times slower for common words). Lexemes are only added: a stale one costs
 * one index probe that finds nothing.
 */
export async function up(db: Knex): Promise<void> {
  // Live listings in vote order with their search vectors: tiers and counts of common words
  // walk this index alone (index-only, a few hundred bytes a row) instead of the table. It has
  // the key of listings_live_votes, which it replaces (one index to keep, and the planner no
  // longer prefers the smaller one for walks that need the vectors).
  await db.raw(`CREATE INDEX listings_live_votes_search ON listings (site_id, votes DESC, id)
    INCLUDE (search_name, search_lead, search) WHERE status = 'live'`);
  await db.raw('DROP INDEX listings_live_votes');
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
  await db.raw(`CREATE INDEX listings_live_votes ON listings (site_id, votes DESC, id) WHERE status = 'live'`);
  await db.raw('DROP INDEX listings_live_votes_search');
  await db.raw('DROP TRIGGER listings_search_lexemes ON listings');
  await db.raw('DROP FUNCTION listings_search_lexemes()');
  await db.raw('DROP TABLE search_lexemes');
}
