import { markShared } from '../cache/shared-json.ts';
import { PUBLIC_COLUMNS, toPublicListing, type ListingRow } from '../domain/listings/listing-row.ts';
import type { SearchPage, SearchQuery } from '../domain/listings/search-port.ts';
import { parseSearchText, type SearchText } from './text.ts';

/** How deep a search goes: results past the first 1,000 are not served. */
export const SEARCH_RESULT_LIMIT = 1_000;

/**
 * How far matches are counted: a larger total is reported as 100 with `total_capped`. Counting
 * visits every match counted, and for a common word counting to 1,000 cost more than finding
 * its page.
 */
export const SEARCH_TOTAL_LIMIT = 100;

/** The public columns as a select list over `listings l`. */
export const COLUMNS = PUBLIC_COLUMNS.map((c) => `l.${c}`).join(', ');

/** What a search shows of a listing: its public columns. */
export type PublicListingRow = Pick<ListingRow, (typeof PUBLIC_COLUMNS)[number]>;

/** What an engine found for one page. */
export interface Matches {
  rows: PublicListingRow[];
  /** Up to SEARCH_TOTAL_LIMIT + 1: one more than the limit means "more than the limit". */
  total: number;
  /** Ids of the rows featured this week (they come first). */
  featured: Set<number>;
}

export const NONE: Matches = { rows: [], total: 0, featured: new Set() };

/** How each engine finds matches; the rules around them (typo retry, the cut, the page) are run() below, the same for both. */
export interface Finder {
  /** Live listings of a site, the featured first, then most voted. */
  byVotes(siteId: number, offset: number, limit: number): Promise<Matches>;
  matching(siteId: number, text: SearchText, offset: number, limit: number): Promise<Matches>;
  /** The text with misspelt words replaced by known ones; null when nothing changed. */
  correctTypos(text: SearchText): Promise<SearchText | null>;
}

/** The search with its words trimmed and spaces collapsed, and the key its answer is kept under. */
export function normalised(query: SearchQuery): { query: SearchQuery; key: string } {
  const q = query.q?.trim().replace(/\s+/g, ' ') ?? '';
  return { query: { ...query, q }, key: JSON.stringify([query.siteId, q.toLowerCase(), query.page, query.perPage]) };
}

/**
 * One page of a (normalised) search. Public results are the same for every caller: the page is
 * shared (never changed) so that its JSON is written once (jsonText) when an engine keeps it.
 */
export async function run(finder: Finder, query: SearchQuery): Promise<SearchPage> {
  const offset = (query.page - 1) * query.perPage;
  const limit = Math.max(0, Math.min(query.perPage, SEARCH_RESULT_LIMIT - offset));
  const text = parseSearchText(query.q ?? '');
  let result: Matches;
  if (!query.q) result = await finder.byVotes(query.siteId, offset, limit);
  else if (!text) result = NONE;
  else {
    result = await finder.matching(query.siteId, text, offset, limit);
    const corrected = result.total === 0 ? await finder.correctTypos(text) : null;
    if (corrected) result = await finder.matching(query.siteId, corrected, offset, limit);
  }
  return markShared({
    items: result.rows.map((r) => ({ ...toPublicListing(r, query.siteKey, query.baseUrl), featured: result.featured.has(r.id) })),
    page: query.page,
    per_page: query.perPage,
    total: Math.min(result.total, SEARCH_TOTAL_LIMIT),
    total_capped: result.total > SEARCH_TOTAL_LIMIT,
  });
}
