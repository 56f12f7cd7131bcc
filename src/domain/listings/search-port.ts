import type { toPublicListing } from './listing-row.ts';

// The SearchEngine port: what search_listings and the front page ask of search. Its engines live
// in src/search/ (an in-memory index per api process, and the PostgreSQL reference); main.ts
// builds one and hands it down in Services. Writers call nothing here: every engine reads what
// PostgreSQL holds, and the in-memory one learns of changes from `search_changes`, which the
// database's triggers write.

/** A search of one site's live listings. */
export interface SearchQuery {
  siteId: number;
  /** The key of that site, which every item names. */
  siteKey: string;
  /** The public origin the items' media URLs are on (config.baseUrl). */
  baseUrl: string;
  /** The words typed; absent or blank lists the site's listings, most voted first. */
  q: string | undefined;
  page: number;
  perPage: number;
}

export type SearchItem = ReturnType<typeof toPublicListing> & {
  /** Featured this week (a paid placement): featured matches come first. */
  featured: boolean;
};

export interface SearchPage {
  items: SearchItem[];
  page: number;
  per_page: number;
  /** Matches counted up to 100. */
  total: number;
  /** More than 100 matches (`total` is then 100). */
  total_capped: boolean;
}

/**
 * Live listings of a site. With `q`: words match as prefixes (`bo` finds Bolt) in the name, web
 * address, headline (english stemming) and summary; listings featured this week first, then by
 * tier (name or address, headline, anywhere), then most votes; a query that finds nothing is
 * retried once with misspelt words corrected to known ones. Without `q`: featured first, then
 * most voted. Results stop after the first 1,000.
 */
export interface SearchEngine {
  search(query: SearchQuery): Promise<SearchPage>;
  /**
   * Gets its own copy ready (the in-memory engine loads its index). The api does not wait for it:
   * until it resolves, an engine answers from PostgreSQL.
   */
  ready(): Promise<void>;
  /**
   * A change notice arrived (src/db/notify.ts): an engine that keeps a copy brings it up to date
   * now rather than at its next look. Optional: an engine that reads PostgreSQL has nothing to do.
   */
  changed?(): void;
}
