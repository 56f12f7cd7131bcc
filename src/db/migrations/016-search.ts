import type { Knex } from 'knex';

// The words of a listing's web address (`https://www.alice.example/` → "www alice example") so
// that a search for the company's domain finds it.
const HOST_WORDS = `translate(coalesce(substring(url from '^[a-zA-Z][a-zA-Z0-9+.-]*://([^/:?#]+)'), ''), '.-', '  ')`;
const NAME = `to_tsvector('simple', coalesce(name, '') || ' ' || ${HOST_WORDS})`;
const HEADLINE = `to_tsvector('english', coalesce(headline, ''))`;
const SUMMARY = `to_tsvector('english', coalesce(summary, ''))`;

/**
 * Search in relevance tiers (name or web address → headline → summary), each tier walked in
 * vote order, so a query never has to rank every match. One vector per tier, each indexed for
 * live listings; `search_terms` holds the words of live listings for typo correction.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS listings_search');
  await db.raw('DROP INDEX IF EXISTS listings_name_trgm');
  await db.raw('ALTER TABLE listings DROP COLUMN search');
  await db.raw(`ALTER TABLE listings
    ADD COLUMN search_name tsvector GENERATED ALWAYS AS (${NAME}) STORED,
    ADD COLUMN search_lead tsvector GENERATED ALWAYS AS (setweight(${NAME}, 'A') || setweight(${HEADLINE}, 'B')) STORED,
    ADD COLUMN search tsvector GENERATED ALWAYS AS (setweight(${NAME}, 'A') || setweight(${HEADLINE}, 'B') || setweight(${SUMMARY}, 'C')) STORED`);
  for (const column of ['search_name', 'search_lead', 'search']) {
    await db.raw(`CREATE INDEX listings_${column} ON listings USING gin (${column}) WHERE status = 'live'`);
  }

  await db.raw(`CREATE TABLE search_terms (term text COLLATE "C" PRIMARY KEY)`);
  await db.raw(`CREATE INDEX search_terms_trgm ON search_terms USING gin (term gin_trgm_ops)`);
  await db.raw(`
    CREATE FUNCTION listings_search_terms() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.status = 'live' THEN
        INSERT INTO search_terms (term)
          SELECT t FROM unnest(tsvector_to_array(to_tsvector('simple',
            coalesce(NEW.name, '') || ' ' || coalesce(NEW.headline, '') || ' ' || coalesce(NEW.summary, '')))) t
          WHERE length(t) BETWEEN 3 AND 40
          ON CONFLICT DO NOTHING;
      END IF;
      RETURN NULL;
    END $$`);
  await db.raw(`CREATE TRIGGER listings_search_terms AFTER INSERT OR UPDATE OF status, name, headline, summary ON listings
    FOR EACH ROW EXECUTE FUNCTION listings_search_terms()`);
  await db.raw(`INSERT INTO search_terms (term)
    SELECT DISTINCT t FROM listings, unnest(tsvector_to_array(to_tsvector('simple',
      coalesce(name, '') || ' ' || coalesce(headline, '') || ' ' || coalesce(summary, '')))) t
    WHERE status = 'live' AND length(t) BETWEEN 3 AND 40 ON CONFLICT DO NOTHING`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TRIGGER listings_search_terms ON listings');
  await db.raw('DROP FUNCTION listings_search_terms()');
  await db.raw('DROP TABLE search_terms');
  await db.raw('ALTER TABLE listings DROP COLUMN search, DROP COLUMN search_lead, DROP COLUMN search_name');
  await db.raw(`ALTER TABLE listings ADD COLUMN search tsvector GENERATED ALWAYS AS (
      setweight(to_tsvector('simple', coalesce(name, '')), 'A') ||
      setweight(to_tsvector('english', coalesce(headline, '')), 'B') ||
      setweight(to_tsvector('english', coalesce(summary, '')), 'C')
    ) STORED`);
  await db.raw(`CREATE INDEX listings_search ON listings USING gin (search) WHERE status = 'live'`);
  await db.raw(`CREATE INDEX listings_name_trgm ON listings USING gin (lower(name) gin_trgm_ops) WHERE status = 'live'`);
}
