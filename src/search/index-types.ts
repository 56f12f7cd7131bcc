// The shapes the in-memory index (memory-index.ts) shares with its layout (index-layout.ts) and
// its evaluation of a search (index-evaluation.ts).

/** A listing as the index holds it: the lexemes of its three search vectors. */
export interface IndexedListing {
  id: number;
  siteId: number;
  votes: number;
  live: boolean;
  /** tsvector_to_array of search_name, search_lead and search. */
  name: string[];
  lead: string[];
  all: string[];
}

/**
 * A search as the index evaluates it: term j of the search holds lexeme ids (a typed word: every
 * lexeme starting with one of its forms; an excluded word: its exact lexemes); a group matches
 * a vector when its `all` terms are in that vector and none of its `none` terms is in the whole
 * vector (bit masks over terms): an excluded word leaves a listing out of every tier.
 */
export interface IndexQuery {
  terms: number[][];
  groups: Array<{ all: number; none: number }>;
}

/** What an engine needs of one search, listing ids best first. */
export interface IndexMatches {
  /** Matches counted up to `countLimit`. */
  total: number;
  featured: number[];
  rows: number[];
}

export interface SearchLimits {
  /**
   * A search (or tier) whose candidates (postings of each group's rarest word) are at most this
   * many is evaluated candidate by candidate (about 0.1 µs each); a larger one is scanned in
   * bitsets in vote order.
   */
  candidates: number;
  /** Bitset words (32 slots each) a scan evaluates at a time before it checks whether it has enough. */
  window: number;
  /**
   * Listings written since the layout beyond which the index is laid out again: each search
   * evaluates those holding its words, a layout takes about 1.5 µs per listing.
   */
  changed: number;
  /** Milliseconds a layout built in the background works before it lets searches run. */
  sliceMs: number;
}

export const LIMITS: SearchLimits = { candidates: 2_000, window: 128, changed: 4_096, sliceMs: 8 };
export const NAME = 0;
export const LEAD = 1;
export const ALL = 2;
/** Counts and candidates of any vector. */
export const ANY = 3;

/** Bitsets over the layout's slots of one lexeme: in the name, lead and whole vector. */
export type Bitsets = [Uint32Array, Uint32Array, Uint32Array];

/** What an evaluation reads of the index: its slots as they are now, and its lookups. */
export interface IndexViews {
  ids: Int32Array;
  site: Int32Array;
  live: Uint8Array;
  clean: Uint32Array;
  /** Live slots written since the layout. */
  changed: ReadonlySet<number>;
  /** The written slots of a site holding a word of the search, with their term bits; null when any written slot may match. */
  writtenBits(query: IndexQuery, siteId: number): Map<number, number> | null;
  range: ReadonlyMap<number, { from: number; to: number }>;
  slotOf: ReadonlyMap<number, number>;
  /** Which terms a slot's name, lead and whole vector satisfy: three bytes of term bits. */
  bits(slot: number): number;
  /** Listings holding one of the term's lexemes in a vector (ANY: in any), an upper bound. */
  estimate(term: number[], vector: number): number;
  /** Clean live slots of the site holding one of the term's lexemes in a vector, each once. */
  candidates(term: number[], vector: number, siteId: number, into: number[]): void;
  termSets(
    term: number[],
    vector: number,
    from: number,
    to: number,
    borrow: () => Uint32Array,
  ): { rare: Uint32Array | null; common: Uint32Array[] };
  /** A zeroed bitset over the layout's words. */
  borrow(): Uint32Array;
  /** Takes back a borrowed bitset whose words [0, used) may be set. */
  giveBack(words: Uint32Array, used: number): void;
  /** Most votes first, then the lower id. */
  before(a: number, b: number): number;
}
