import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../../src/db/knex.ts';
import type { SearchEngine, SearchPage } from '../../src/domain/listings/search-port.ts';
import { isoWeekStart } from '../../src/workflows/contracts/weeks.ts';

// What the engine parity tests share: listings with words in every field, the queries asked of
// every engine and the pages compared.

const WORDS = [
  'analytics',
  'analysis',
  'analyst',
  'cloud',
  'clouds',
  'clouded',
  'design',
  'designer',
  'designing',
  'team',
  'teams',
  'running',
  'runner',
  'run',
  'rocket',
  'rockets',
  'data',
  'database',
  'café',
  'naïve',
  'straße',
  'données',
  '日本語',
  'über',
  'x1',
  '2024',
  'ai',
  'the',
  'and',
  'quill',
  'quillon',
  'vellum',
  'zorbix',
  'meta',
  'metal',
  'metallic',
];

/**
 * Listings of both sites in every status, votes with many ties, words in every field. Web
 * addresses stay ASCII: with a non-ASCII host, PostgreSQL 18.4 here stored broken vectors for
 * some listings and its own statements then disagreed about them (`search_name @@ 'café'` true
 * for a listing its name tier did not return).
 */
export async function seedListings(db: Db, count: number, prefix: string): Promise<void> {
  const sites = await db('sites').orderBy('id').pluck('id');
  await db.raw(
    `INSERT INTO listings (site_id, slug, company_domain, name, url, status, headline, summary, votes, launch_week, live_at)
     SELECT s[1 + (g % 7 = 0)::int], ? || g, ? || g || '.example.org',
            initcap(w[1 + g % 36]) || CASE WHEN g % 3 = 0 THEN ' ' || w[1 + (g / 36) % 36] ELSE '' END,
            'https://' || ? || g || '.' || w[1 + (g / 5) % 18] || '.example.org/',
            CASE WHEN g % 11 = 0 THEN 'draft' WHEN g % 13 = 0 THEN 'removed' ELSE 'live' END,
            CASE WHEN g % 4 = 0 THEN NULL ELSE 'The ' || w[1 + (g / 7) % 36] || ' for ' || w[1 + (g / 11) % 36] || ' teams' END,
            CASE WHEN g % 5 = 0 THEN NULL ELSE 'Helps with ' || w[1 + (g / 13) % 36] || ' and ' || w[1 + (g / 17) % 36] || '.' END,
            (g * 7919) % 23, ?, now()
     FROM generate_series(1, ?) g, (SELECT ?::int[] AS s) sites, (SELECT ?::text[] AS w) words`,
    [`${prefix}-`, prefix, prefix, isoWeekStart(new Date()), count, sites, WORDS],
  );
}

export function queries(): string[] {
  const typo = (w: string) => (w.length > 3 ? w[0] + w[2] + w[1] + w.slice(3) : w);
  const single = WORDS.flatMap((w) => [w, w.slice(0, 2), w.slice(0, 3), typo(w), w.toUpperCase()]);
  const pairs = WORDS.slice(0, 18).map((w, i) => `${w} ${WORDS[(i * 7 + 3) % WORDS.length]}`);
  // Each query once: words of a family share their prefixes ('an', 'clo'...), and short words are
  // their own typo and capitals ('x1', '2024'); a second ask would compare nothing new.
  return unique([
    ...single,
    ...pairs,
    'analytics cloud teams',
    'anal clo',
    'analytics or rocket',
    'design -designer',
    '-cloud data',
    'data -teams',
    'cloud -rocket or design',
    'cloud -',
    '"cloud design"',
    'rocket "for data"',
    'analitycs',
    'desgin teams',
    'zorbx',
    'qill',
    '',
    '   ',
    '!!!',
    '-data',
    'or',
    'or or cloud',
    'a',
    'e',
    'x',
    '1',
    '20',
    'example',
    'org',
    'https',
    "o'brien",
    'cloud\u0000data',
    '<script>',
    'x'.repeat(150),
    'über straße',
    '日本',
    'données café',
    'NAÏVE',
    'the and',
    'teams teams teams teams teams teams teams teams teams teams',
  ]);
}

const unique = (queries: string[]) => [...new Set(queries)];

/** Pages by offset; per_page 100 from offset 1,000 on is past SEARCH_RESULT_LIMIT. */
export const PAGES: Array<[number, number]> = [
  [1, 20],
  [1, 100],
  [3, 7],
  [2, 20],
  [10, 100],
  [11, 100],
  [60, 20],
];

/**
 * Every query's pages (in order of offset, until the first empty one: every later page is past the
 * end as well) from `engine` that differ from `truth`'s. Compared with Node's deep equality (ava's
 * deepEqual builds a diffable description of both sides, about 1 ms for a page of 100); the
 * caller shows every difference in one assertion.
 */
export async function differences(engine: SearchEngine, truth: SearchEngine, siteId: number) {
  const found: { query: string; engine: unknown; expected: unknown }[] = [];
  for (const q of queries()) {
    for (const [page, perPage] of PAGES) {
      const query = { siteId, siteKey: 'main', baseUrl: '', q, page, perPage };
      const actual = await engine.search(query);
      const expected = await truth.search(query);
      if (!isDeepStrictEqual(actual, expected))
        found.push({ query: `q=${JSON.stringify(q)} page=${page} per_page=${perPage}`, engine: brief(actual), expected: brief(expected) });
      if (expected.items.length === 0) break;
    }
  }
  return found;
}

/** A page as its ids (featured ones marked *), total and whether it is capped: what a difference is read by. */
function brief(page: SearchPage) {
  return {
    ids: page.items.map((i) => `${i.id}${i.featured ? '*' : ''}`).join(' '),
    total: page.total,
    capped: page.total_capped,
    items: page.items,
  };
}
