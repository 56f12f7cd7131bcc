import type { Db } from '../db/knex.ts';
import { nearestKnownWords, typoCandidates, withFixes, type SearchText } from './text.ts';

/** A typed word as PostgreSQL's text search configurations turn it into lexemes. */
export interface WordForms {
  simple: string[];
  english: string[];
}

/**
 * What the engines that keep an index outside PostgreSQL (memory, OpenSearch) still ask of it,
 * remembered per word: the lexemes a typed word makes (stemming stays PostgreSQL's, so the
 * engines agree with the reference) and the known word a misspelt one stands for. Forms never
 * change; corrections are forgotten when listings change (forgetTypos), since new words may
 * correct differently.
 */
export class WordLookups {
  readonly #db: Db;
  readonly #forms = new Map<string, WordForms>();
  readonly #typos = new Map<string, string | null>();

  constructor(db: Db) {
    this.#db = db;
  }

  async formsOf(words: string[]): Promise<Map<string, WordForms>> {
    const missing = [...new Set(words.filter((w) => !this.#forms.has(w)))];
    if (missing.length > 0) {
      const { rows } = await this.#db.raw(
        `SELECT w AS word, tsvector_to_array(to_tsvector('simple', w)) AS simple, tsvector_to_array(to_tsvector('english', w)) AS english
         FROM unnest(?::text[]) w`,
        [missing],
      );
      if (this.#forms.size > MAX_REMEMBERED) this.#forms.clear();
      for (const r of rows as Array<WordForms & { word: string }>) this.#forms.set(r.word, { simple: r.simple, english: r.english });
    }
    return new Map(words.map((w) => [w, this.#forms.get(w)!]));
  }

  /** As correctTypos (text.ts), each word's correction remembered until forgetTypos. */
  async correctTypos(text: SearchText): Promise<SearchText | null> {
    const words = typoCandidates(text);
    const missing = words.filter((w) => !this.#typos.has(w));
    if (missing.length > 0) {
      const found = await nearestKnownWords(this.#db, missing);
      if (this.#typos.size > MAX_REMEMBERED) this.#typos.clear();
      for (const w of missing) this.#typos.set(w, found.get(w) ?? null);
    }
    const fixes = new Map<string, string>();
    for (const w of words) {
      const fix = this.#typos.get(w);
      if (fix) fixes.set(w, fix);
    }
    return withFixes(text, fixes);
  }

  forgetTypos(): void {
    this.#typos.clear();
  }
}

/** Whether to_tsquery makes one lexeme per configuration of each word, the only words an outside index matches as PostgreSQL would. */
export function singleLexemes(forms: Map<string, WordForms>): boolean {
  return [...forms.values()].every(({ simple, english }) => simple.length === 1 && english.length <= 1);
}

/** A listing's search data as PostgreSQL stored it: the lexemes of its three search vectors. */
export interface ListingLexemesRow {
  id: number;
  site_id: number;
  votes: number;
  status: string;
  /** Named apart from the listing's own columns (name), which a query may select beside them. */
  name_lexemes: string[];
  lead_lexemes: string[];
  all_lexemes: string[];
}

/** The lexemes of listings' search vectors (tsvector_to_array of search_name, search_lead and search). */
export function listingLexemes(db: Db) {
  return db('listings')
    .select('listings.id', 'listings.site_id', 'listings.votes', 'listings.status')
    .select({
      name_lexemes: db.raw('tsvector_to_array(search_name)'),
      lead_lexemes: db.raw('tsvector_to_array(search_lead)'),
      all_lexemes: db.raw('tsvector_to_array(search)'),
    });
}

const MAX_REMEMBERED = 200_000;
