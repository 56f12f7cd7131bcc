import type { Knex } from 'knex';
import type { Db } from '../../db/knex.ts';
import { PUBLIC_COLUMNS, siteKeys, toPublicListing, type ListingRow } from './listings.ts';

export interface SearchQuery {
  siteId: number;
  q: string | undefined;
  page: number;
  perPage: number;
}

// Names are indexed with the `simple` configuration (no stemming), descriptions with `english`;
// the query is parsed both ways so that either kind of match counts.
const TSQUERY = `(websearch_to_tsquery('simple', ?) || websearch_to_tsquery('english', ?))`;

/**
 * Live listings of a site. With `q`: PostgreSQL full-text ranking; when that finds nothing,
 * trigram similarity on the name catches typos. Without `q`: most votes first.
 */
export async function searchListings(db: Db, query: SearchQuery) {
  const q = query.q?.trim() ?? '';
  const live = () => db('listings').where({ site_id: query.siteId, status: 'live' });
  const offset = (query.page - 1) * query.perPage;
  let result: { rows: ListingRow[]; total: number };
  if (!q) {
    result = await fetch(live(), live().orderBy([{ column: 'votes', order: 'desc' }, 'id']), query.perPage, offset);
  } else {
    const fts = () => live().whereRaw(`search @@ ${TSQUERY}`, [q, q]);
    result = await fetch(
      fts(),
      fts().orderByRaw(`ts_rank_cd(search, ${TSQUERY}) DESC, votes DESC, id`, [q, q]),
      query.perPage,
      offset,
    );
    if (result.total === 0 && q.length >= 3) {
      const fuzzy = () => live().whereRaw('lower(name) % lower(?)', [q]);
      result = await fetch(fuzzy(), fuzzy().orderByRaw('similarity(lower(name), lower(?)) DESC, votes DESC, id', [q]), query.perPage, offset);
    }
  }
  const keys = await siteKeys(db);
  return {
    items: result.rows.map((r) => toPublicListing(r, keys.get(r.site_id)!)),
    page: query.page,
    per_page: query.perPage,
    total: result.total,
  };
}

async function fetch(
  counted: Knex.QueryBuilder,
  ordered: Knex.QueryBuilder,
  limit: number,
  offset: number,
): Promise<{ rows: ListingRow[]; total: number }> {
  const [rows, [{ count }]] = await Promise.all([
    ordered.select(PUBLIC_COLUMNS).limit(limit).offset(offset),
    counted.count({ count: '*' }),
  ]);
  return { rows: rows as ListingRow[], total: Number(count) };
}
