import type { Knex } from 'knex';

/**
 * `search_feeds`: where a search index outside PostgreSQL (OpenSearch) stands in `search_changes`,
 * kept in PostgreSQL so that whichever worker feeds it next resumes there (a crashed feeder loses
 * nothing): the xmin to look for changes from (`from_xid`), the changes at or after it already applied, the
 * physical index the feed writes (a reindex moves it) and a round counter whose values are the
 * documents' external versions, so a late write of an earlier round never replaces a newer one.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`CREATE TABLE search_feeds (
    name text PRIMARY KEY,
    index_name text NOT NULL,
    from_xid xid8 NOT NULL,
    applied text[] NOT NULL DEFAULT '{}',
    round bigint NOT NULL DEFAULT 0,
    fed_at timestamptz NOT NULL DEFAULT now())`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TABLE search_feeds');
}
