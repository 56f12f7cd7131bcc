import { TtlCache } from '../cache/ttl-cache.ts';
import type { Db } from '../db/knex.ts';
import type { ListingRow } from '../domain/listings/listing-row.ts';
import type { SearchEngine, SearchPage, SearchQuery } from '../domain/listings/search-port.ts';
import { isoWeekStart } from '../workflows/contracts/weeks.ts';
import { COLUMNS, NONE, normalised, run, SEARCH_TOTAL_LIMIT, type Finder, type Matches } from './results.ts';
import { correctTypos, expandWords, matchableText, tsqueryOf, type SearchText, type TsQuery } from './text.ts';

/**
 * The PostgreSQL engine, the reference: every search is SQL over the listings' stored vectors
 * (migrations 016-017). Relevance tiers, best first: every word in the name or web address, then
 * in the headline, then anywhere (summary), each listing in its best tier only. Within a tier, most votes first. Each tier is
 * walked in vote order (or from its index when the words are rare), never ranked as a whole.
 * An excluded word is looked for in the whole listing in every tier (see vectorMatches).
 */
const TIERS = [
  { vector: 'search_name', excluding: [] },
  { vector: 'search_lead', excluding: ['search_name'] },
  // search_lead holds the name's words, but a vector PostgreSQL stored broken (seen with non-ASCII
  // names, test/helpers/search-parity.ts) may not: a name match is left out here as well, so no
  // listing is ever listed twice.
  { vector: 'search', excluding: ['search_name', 'search_lead'] },
] as const;

export class PostgresSearch implements SearchEngine, Finder {
  readonly #db: Db;
  /** Popular queries repeat: answers are reused for `cacheTtlMs` (0: never). */
  readonly #answers: TtlCache<SearchPage>;

  constructor(db: Db, settings: { cacheTtlMs: number }) {
    this.#db = db;
    this.#answers = new TtlCache({ ttlMs: settings.cacheTtlMs, maxEntries: 2_000 });
  }

  search(search: SearchQuery): Promise<SearchPage> {
    const { query, key } = normalised(search);
    return this.#answers.get(key, () => run(this, query));
  }

  async ready(): Promise<void> {}

  /** A change notice: answers made before it may be out of date. */
  changed(): void {
    this.#answers.clear();
  }

  byVotes(siteId: number, offset: number, limit: number): Promise<Matches> {
    return byVotes(this.#db, siteId, offset, limit);
  }

  matching(siteId: number, text: SearchText, offset: number, limit: number): Promise<Matches> {
    return matching(this.#db, siteId, text, offset, limit);
  }

  correctTypos(text: SearchText): Promise<SearchText | null> {
    return correctTypos(this.#db, text);
  }
}

const LIVE = `l.site_id = ? AND l.status = 'live'`;

async function byVotes(db: Db, siteId: number, offset: number, limit: number): Promise<Matches> {
  const featured = await featuredRows(db, siteId);
  const ids = featured.map((r) => r.id);
  const first = featured.slice(offset, offset + limit);
  const { rows } = await db.raw(
    `SELECT c.total, p.* FROM
       (SELECT count(*)::int AS total FROM (SELECT 1 FROM listings l WHERE ${LIVE} LIMIT ${SEARCH_TOTAL_LIMIT + 1}) s) c
       LEFT JOIN LATERAL (SELECT ${COLUMNS} FROM listings l WHERE ${LIVE} AND l.id <> ALL(?::int[])
                          ORDER BY l.votes DESC, l.id LIMIT ? OFFSET ?) p ON true`,
    [siteId, siteId, ids, limit - first.length, Math.max(0, offset - featured.length)],
  );
  const page = pageOf(rows);
  return { ...page, rows: [...first, ...page.rows], featured: new Set(ids) };
}

/** Ids of the listings featured in a week (bindings: site id, Monday). */
const FEATURED_IDS = `SELECT f.listing_id FROM featured_placements f WHERE f.site_id = ? AND f.week_start = ?`;

/**
 * Live listings with a featured placement this week (UTC) that match the search (all of them
 * without one), best tier then most votes first, as SQL yielding one JSON array. Placements of
 * a week are few and indexed by site and week, so this stays a small lookup whatever the query.
 */
function featuredSql(siteId: number, tsquery: TsQuery | null): Sql {
  const [name, lead] = tsquery ? [vectorMatches('search_name', tsquery), vectorMatches('search_lead', tsquery)] : [];
  const tier = name && lead ? `CASE WHEN ${name.sql} THEN 0 WHEN ${lead.sql} THEN 1 ELSE 2 END` : '0';
  const sql = `(SELECT coalesce(json_agg(t ORDER BY t.tier, t.votes DESC, t.id), '[]') FROM (
       SELECT ${tier} AS tier, ${COLUMNS} FROM listings l
       WHERE ${LIVE} ${tsquery ? `AND l.search @@ ${tsquery.sql}` : ''}
         AND l.id IN (${FEATURED_IDS})) t)`;
  const bindings = [...(name?.bindings ?? []), ...(lead?.bindings ?? []), siteId, ...(tsquery?.bindings ?? [])];
  return { sql, bindings: [...bindings, siteId, isoWeekStart(new Date())] };
}

async function featuredRows(db: Db, siteId: number): Promise<TierRow[]> {
  const featured = featuredSql(siteId, null);
  const { rows } = await db.raw(`SELECT ${featured.sql} AS featured`, featured.bindings as never[]);
  return rows[0].featured;
}

/**
 * How deep a tier is walked in vote order (first, then once more if it is large) before it
 * asks its text index instead: a tier with fewer than `need` matches among that many most
 * voted listings is either rare (its index is cheap) or holds only little-voted listings (then
 * its index sorts them all, the slow case). Walks read the covering index, about 0.3 µs a
 * listing, and stop at the `need`th match.
 */
const WALK_DEPTHS = [5_000, 50_000] as const;

type TierRow = ListingRow & { tier: number };

/**
 * The capped count, then the page cut from the tiers in order, each asked only while the page
 * is short (a common word fills it from names alone). The SQL of each tier is chosen here, not
 * by the planner: its guesses for prefixes and several words are far off, and a wrong guess
 * walked every live listing in vote order.
 */
async function matching(db: Db, siteId: number, text: SearchText, offset: number, limit: number): Promise<Matches> {
  const expansions = await expandWords(db, text);
  const matchable = matchableText(text, expansions);
  if (!matchable) return NONE;
  const tsquery = tsqueryOf(matchable, expansions);
  const names = tierWhere(TIERS[0], tsquery, siteId);
  const all: Sql = { sql: `l.search @@ ${tsquery.sql}`, bindings: tsquery.bindings };
  const [large, namesLarge] = await areLarge(db, siteId, [all, names]);
  const first = await countFeaturedAndNames(db, siteId, tsquery, offset + limit, { large, namesLarge });
  const { total, featured } = first;
  // Featured matches fill the first places; the tiers give the rest, without them.
  const depth = offset + limit - featured.length;
  const capped = total > SEARCH_TOTAL_LIMIT;
  const rows: TierRow[] = [...first.rows];
  for (const [i, tier] of TIERS.entries()) {
    if (i === 0 || rows.length >= (capped ? depth : Math.min(depth, total - featured.length))) continue;
    const need = depth - rows.length;
    const where = tierWhere(tier, tsquery, siteId);
    // Uncapped, every tier holds at most `total` rows: its index finds them all cheaply.
    let found = capped ? await select(db, walkSql(siteId, i, where, need, WALK_DEPTHS[0])) : null;
    if (found && found.length < need && (await areLarge(db, siteId, [where]))[0]) {
      found = await select(db, walkSql(siteId, i, where, need, WALK_DEPTHS[1]));
    }
    if (!found || found.length < need) found = await select(db, indexSql(siteId, i, where, need));
    rows.push(...found);
  }
  return { rows: [...featured, ...rows].slice(offset, offset + limit), total, featured: new Set(featured.map((r) => r.id)) };
}

interface Sql {
  sql: string;
  bindings: unknown[];
}

/**
 * Whether a vector of the listing matches the search: some group has its words in that vector
 * and its excluded terms nowhere in the listing (the whole vector, what the count tests). So a
 * word excluded from a listing leaves it out of every tier, not only of the count, also when
 * it is absent from the vector that matched the rest (`-pastry` with pastry in the headline).
 */
function vectorMatches(vector: 'search_name' | 'search_lead' | 'search', tsquery: TsQuery): Sql {
  if (vector === 'search' || tsquery.groups.every((g) => g.excluded === null)) {
    return { sql: `l.${vector} @@ ${tsquery.sql}`, bindings: tsquery.bindings };
  }
  const sql: string[] = [];
  const bindings: unknown[] = [];
  for (const { words, excluded } of tsquery.groups) {
    const parts: string[] = [];
    if (words) {
      parts.push(`l.${vector} @@ ${words.sql}`);
      bindings.push(...words.bindings);
    }
    if (excluded) {
      parts.push(`NOT l.search @@ ${excluded.sql}`);
      bindings.push(...excluded.bindings);
    }
    sql.push(`(${parts.join(' AND ')})`);
  }
  return { sql: `(${sql.join(' OR ')})`, bindings };
}

/** The tier's condition, featured listings left out (they come first anyway). */
function tierWhere(tier: (typeof TIERS)[number], tsquery: TsQuery, siteId: number): Sql {
  const matches = vectorMatches(tier.vector, tsquery);
  const sql = [matches.sql];
  const bindings: unknown[] = [...matches.bindings];
  for (const excluded of tier.excluding) {
    const before = vectorMatches(excluded, tsquery);
    sql.push(`NOT ${before.sql}`);
    bindings.push(...before.bindings);
  }
  sql.push(`l.id NOT IN (${FEATURED_IDS})`);
  bindings.push(siteId, isoWeekStart(new Date()));
  return { sql: sql.join(' AND '), bindings };
}

/**
 * One round trip for the common case: the capped count (from the most voted listings when a
 * word is common, else from the text index), the featured matches and the first
 * tier (names), walked when the count is capped, else (or when the walk comes up short) from
 * its index. The choice is made in the statement by gates on the count, which PostgreSQL
 * evaluates once before running the gated part.
 */
async function countFeaturedAndNames(
  db: Db,
  siteId: number,
  tsquery: TsQuery,
  need: number,
  large: Record<'large' | 'namesLarge', boolean>,
) {
  const featured = featuredSql(siteId, tsquery);
  const where = tierWhere(TIERS[0], tsquery, siteId);
  const [walked, deeper] = ['(SELECT count(*) FROM w)', '(SELECT count(*) FROM w2)'];
  const capped = `(SELECT total FROM c) > ${SEARCH_TOTAL_LIMIT}`;
  const walk = walkSql(siteId, 0, where, need, WALK_DEPTHS[0], capped);
  const walkDeeper = walkSql(siteId, 0, where, need, WALK_DEPTHS[1], `${large.namesLarge} AND ${capped} AND ${walked} < ${need}`);
  const index = indexSql(siteId, 0, where, need, `${walked} < ${need} AND ${deeper} < ${need}`);
  const { rows } = await db.raw(
    `WITH c AS MATERIALIZED (
       SELECT CASE WHEN w.n > ${SEARCH_TOTAL_LIMIT} THEN w.n ELSE (
         SELECT count(*)::int FROM (SELECT 1 FROM listings l WHERE ${LIVE} AND l.search @@ ${tsquery.sql}
                                    LIMIT ${SEARCH_TOTAL_LIMIT + 1}) s) END AS total
       FROM (SELECT count(*)::int AS n FROM (SELECT 1 FROM (${mostVoted(WALK_DEPTHS[large.large ? 1 : 0])}) l WHERE l.search @@ ${tsquery.sql}
                                             LIMIT ${SEARCH_TOTAL_LIMIT + 1}) s) w),
     w AS MATERIALIZED (${walk.sql}),
     w2 AS MATERIALIZED (${walkDeeper.sql})
     SELECT (SELECT total FROM c) AS total, ${featured.sql} AS featured,
       (SELECT coalesce(json_agg(r ORDER BY r.votes DESC, r.id), '[]') FROM (
          SELECT * FROM w WHERE ${walked} >= ${need}
          UNION ALL SELECT * FROM w2 WHERE ${walked} < ${need} AND ${deeper} >= ${need}
          UNION ALL (${index.sql})) r) AS rows`,
    [
      ...[siteId, ...tsquery.bindings, siteId, ...tsquery.bindings],
      ...[...walk.bindings, ...walkDeeper.bindings, ...featured.bindings, ...index.bindings],
    ] as never[],
  );
  return rows[0] as { total: number; featured: TierRow[]; rows: TierRow[] };
}

/**
 * The tier's best `need` among the `depth` most voted listings, in vote order: walked in
 * the covering index (ids, votes and vectors), then only the rows found are read.
 */
function walkSql(siteId: number, tier: number, where: Sql, need: number, depth: number, gate = 'true'): Sql {
  return {
    sql: `SELECT ${tier} AS tier, ${COLUMNS} FROM listings l JOIN (
            SELECT l.id, l.votes FROM (${mostVoted(depth)}) l
            WHERE ${gate} AND ${where.sql} ORDER BY l.votes DESC, l.id LIMIT ${need}) m ON m.id = l.id
          ORDER BY m.votes DESC, m.id`,
    bindings: [siteId, ...where.bindings],
  };
}

/**
 * Whether the planner expects each condition to hold for more than LARGE_TIER listings (its
 * lexeme statistics are good for this; its guesses at walk costs are not), from one EXPLAIN.
 * A large tier is walked deeper before its index has to sort it all, and a large match is
 * counted from a deeper walk; small ones go to their text index at once.
 */
async function areLarge(db: Db, siteId: number, conditions: Sql[]): Promise<boolean[]> {
  const sql = conditions.map((c) => `(SELECT 1 FROM listings l WHERE ${LIVE} AND ${c.sql})`).join(' UNION ALL ');
  const bindings = conditions.flatMap((c) => [siteId, ...c.bindings]);
  const { rows } = await db.raw(`EXPLAIN (FORMAT JSON) ${sql}`, bindings as never[]);
  const plan = rows[0]['QUERY PLAN'][0].Plan;
  const parts: Array<{ 'Plan Rows': number }> = conditions.length > 1 ? plan.Plans : [plan];
  return parts.map((p) => p['Plan Rows'] > LARGE_TIER);
}

const LARGE_TIER = 5_000;

/** The `limit` most voted live listings of a site with their vectors (binding: site id), from listings_live_votes_search alone. */
const mostVoted = (limit: number) => `SELECT l.id, l.votes, l.search_name, l.search_lead, l.search FROM listings l
              WHERE ${LIVE} ORDER BY l.votes DESC, l.id LIMIT ${limit}`;

/** The tier's best `need` from its text index (the order by an expression keeps the planner off the vote walk). */
function indexSql(siteId: number, tier: number, where: Sql, need: number, gate = 'true'): Sql {
  return {
    sql: `SELECT ${tier} AS tier, ${COLUMNS} FROM listings l
          WHERE ${gate} AND ${LIVE} AND ${where.sql} ORDER BY l.votes + 0 DESC, l.id LIMIT ${need}`,
    bindings: [siteId, ...where.bindings],
  };
}

async function select(db: Db, query: Sql): Promise<TierRow[]> {
  return (await db.raw(query.sql, query.bindings as never[])).rows;
}

function pageOf(rows: Array<ListingRow & { total: number; id: number | null }>): Omit<Matches, 'featured'> {
  const total = Number(rows[0]?.total ?? 0);
  return { rows: rows.filter((r) => r.id !== null), total };
}
