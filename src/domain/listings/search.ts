import { cacheOf } from '../../cache/ttl-cache.ts';
import type { Db } from '../../db/knex.ts';
import { PUBLIC_COLUMNS, siteKeys, toPublicListing, type ListingRow } from './listings.ts';
import { correctTypos, parseSearchText, tsqueryOf, type SearchText } from './search-text.ts';

export interface SearchQuery {
  siteId: number;
  q: string | undefined;
  page: number;
  perPage: number;
}

export type SearchPage = Awaited<ReturnType<typeof runSearch>>;

/**
 * How deep a search goes: results past the first 1,000 are not served and totals above it are
 * reported as 1,000 with `total_capped`, so that no query has to visit every match.
 */
export const SEARCH_RESULT_LIMIT = 1_000;

/**
 * Relevance tiers, best first: every word in the name or web address, then in the headline too,
 * then anywhere (summary). Within a tier, most votes first. Each tier is walked in vote order
 * (or from its index when the words are rare), never ranked as a whole.
 */
const TIERS = [
  { vector: 'search_name', excluding: null },
  { vector: 'search_lead', excluding: 'search_name' },
  { vector: 'search', excluding: 'search_lead' },
] as const;

const COLUMNS = PUBLIC_COLUMNS.map((c) => `l.${c}`).join(', ');

/**
 * Live listings of a site. With `q`: words match as prefixes (`bo` finds Bolt) in the name, web
 * address, headline (english stemming) and summary, ranked by tier then votes; a query that
 * finds nothing is retried once with misspelt words corrected to known ones. Without `q`: most
 * voted first.
 */
export function searchListings(db: Db, query: SearchQuery, cacheTtlMs: number): Promise<SearchPage> {
  // Public results are the same for every caller and popular queries repeat: keep them briefly.
  const cache = cacheOf<SearchPage>(db, 'search', { ttlMs: cacheTtlMs, maxEntries: 2_000 });
  const q = query.q?.trim().replace(/\s+/g, ' ') ?? '';
  const key = JSON.stringify([query.siteId, q.toLowerCase(), query.page, query.perPage]);
  return cache.get(key, () => runSearch(db, { ...query, q }));
}

async function runSearch(db: Db, query: SearchQuery) {
  const offset = (query.page - 1) * query.perPage;
  const limit = Math.max(0, Math.min(query.perPage, SEARCH_RESULT_LIMIT - offset));
  const text = parseSearchText(query.q ?? '');
  let result: Matches;
  if (!query.q) result = await byVotes(db, query.siteId, offset, limit);
  else if (!text) result = { rows: [], total: 0 };
  else {
    result = await matching(db, query.siteId, text, offset, limit);
    const corrected = result.total === 0 ? await correctTypos(db, text) : null;
    if (corrected) result = await matching(db, query.siteId, corrected, offset, limit);
  }
  const keys = await siteKeys(db);
  return {
    items: result.rows.map((r) => toPublicListing(r, keys.get(r.site_id)!)),
    page: query.page,
    per_page: query.perPage,
    total: Math.min(result.total, SEARCH_RESULT_LIMIT),
    total_capped: result.total > SEARCH_RESULT_LIMIT,
  };
}

interface Matches {
  rows: ListingRow[];
  /** Up to SEARCH_RESULT_LIMIT + 1: one more than the limit means "more than the limit". */
  total: number;
}

const LIVE = `l.site_id = ? AND l.status = 'live'`;

async function byVotes(db: Db, siteId: number, offset: number, limit: number): Promise<Matches> {
  const { rows } = await db.raw(
    `SELECT c.total, p.* FROM
       (SELECT count(*)::int AS total FROM (SELECT 1 FROM listings l WHERE ${LIVE} LIMIT ${SEARCH_RESULT_LIMIT + 1}) s) c
       LEFT JOIN LATERAL (SELECT ${COLUMNS} FROM listings l WHERE ${LIVE} ORDER BY l.votes DESC, l.id LIMIT ? OFFSET ?) p ON true`,
    [siteId, siteId, limit, offset],
  );
  return pageOf(rows);
}

/**
 * One round trip: the capped count, and the page cut from the tiers in order. The query is
 * written out in each part (not shared through a CTE) so the planner sees its words and picks,
 * per tier, between the vote-ordered index and the text index.
 */
async function matching(db: Db, siteId: number, text: SearchText, offset: number, limit: number): Promise<Matches> {
  const tsquery = tsqueryOf(text);
  const depth = offset + limit;
  const sql: string[] = [];
  const bindings: unknown[] = [];
  const match = (vector: string, not = false) => {
    bindings.push(...tsquery.bindings);
    return `${not ? 'NOT ' : ''}l.${vector} @@ ${tsquery.sql}`;
  };
  sql.push(`SELECT c.total, p.* FROM (SELECT count(*)::int AS total FROM (SELECT 1 FROM listings l WHERE ${LIVE} AND `);
  bindings.push(siteId);
  sql.push(`${match('search')} LIMIT ${SEARCH_RESULT_LIMIT + 1}) s) c LEFT JOIN LATERAL (SELECT * FROM (`);
  TIERS.forEach((tier, i) => {
    bindings.push(siteId);
    const where = [LIVE, match(tier.vector), ...(tier.excluding ? [match(tier.excluding, true)] : [])].join(' AND ');
    sql.push(
      `${i > 0 ? ' UNION ALL ' : ''}(SELECT ${i} AS tier, ${COLUMNS} FROM listings l WHERE ${where} ORDER BY l.votes DESC, l.id LIMIT ${depth})`,
    );
  });
  sql.push(`) t ORDER BY t.tier, t.votes DESC, t.id LIMIT ? OFFSET ?) p ON true`);
  bindings.push(limit, offset);
  const { rows } = await db.raw(sql.join(''), bindings as never[]);
  return pageOf(rows);
}

function pageOf(rows: Array<ListingRow & { total: number; id: number | null }>): Matches {
  const total = Number(rows[0]?.total ?? 0);
  return { rows: rows.filter((r) => r.id !== null), total };
}
