import type { Knex } from 'knex';
import { cacheOf } from '../../cache/ttl-cache.ts';
import type { Db } from '../../db/knex.ts';
import { PUBLIC_COLUMNS, siteKeys, toPublicListing, type ListingRow } from './listings.ts';

export interface SearchQuery {
  siteId: number;
  q: string | undefined;
  page: number;
  perPage: number;
}

export type SearchPage = Awaited<ReturnType<typeof runSearch>>;

// Names are indexed with the `simple` configuration (no stemming), descriptions with `english`;
// the query is parsed both ways so that either kind of match counts.
const TSQUERY = `(websearch_to_tsquery('simple', ?) || websearch_to_tsquery('english', ?))`;

/**
 * Live listings of a site. With `q`: PostgreSQL full-text ranking; when that finds nothing,
 * trigram similarity on the name catches typos. Without `q`: most votes first.
 */
export function searchListings(db: Db, query: SearchQuery, cacheTtlMs: number): Promise<SearchPage> {
  // Public results are the same for every caller and popular queries repeat: keep them briefly.
  const cache = cacheOf<SearchPage>(db, 'search', { ttlMs: cacheTtlMs, maxEntries: 2_000 });
  const q = query.q?.trim().replace(/\s+/g, ' ') ?? '';
  const key = JSON.stringify([query.siteId, q.toLowerCase(), query.page, query.perPage]);
  return cache.get(key, () => runSearch(db, { ...query, q }));
}

async function runSearch(db: Db, query: SearchQuery) {
  const q = query.q ?? '';
  const live = () => db('listings').where({ site_id: query.siteId, status: 'live' });
  const offset = (query.page - 1) * query.perPage;
  let result: { rows: ListingRow[]; total: number };
  if (!q) {
    result = await fetch(live().orderBy([{ column: 'votes', order: 'desc' }, 'id']), query.perPage, offset);
  } else {
    const fts = () => live().whereRaw(`search @@ ${TSQUERY}`, [q, q]);
    result = await fetch(
      // ts_rank, not ts_rank_cd: half the cost per match, and cover density adds little on short texts.
      fts().orderByRaw(`ts_rank(search, ${TSQUERY}) DESC, votes DESC, id`, [q, q]),
      query.perPage,
      offset,
    );
    if (result.total === 0 && q.length >= 3) {
      const fuzzy = () => live().whereRaw('lower(name) % lower(?)', [q]);
      result = await fetch(fuzzy().orderByRaw('similarity(lower(name), lower(?)) DESC, votes DESC, id', [q]), query.perPage, offset);
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

/** One page and the total in one scan (the window count sees every match before LIMIT). */
async function fetch(ordered: Knex.QueryBuilder, limit: number, offset: number): Promise<{ rows: ListingRow[]; total: number }> {
  const rows = await ordered.select([...PUBLIC_COLUMNS, ordered.client.raw('count(*) OVER () AS total')]).limit(limit).offset(offset);
  if (rows.length > 0 || offset === 0) return { rows: rows as ListingRow[], total: Number(rows[0]?.total ?? 0) };
  // A page past the end has no row to carry the total.
  const [{ count }] = await ordered.clearSelect().clearOrder().clear('limit').clear('offset').count({ count: '*' });
  return { rows: [], total: Number(count) };
}
