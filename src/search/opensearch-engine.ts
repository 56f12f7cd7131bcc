import type { Client } from '@opensearch-project/opensearch';
import type { Db } from '../db/knex.ts';
import type { SearchEngine, SearchPage, SearchQuery } from '../domain/listings/search-port.ts';
import { isoWeekStart } from '../workflows/contracts/weeks.ts';
import type { ListingDocument } from './opensearch-index.ts';
import { PostgresSearch } from './postgres-engine.ts';
import { normalised, run, SEARCH_TOTAL_LIMIT, type Finder, type Matches } from './results.ts';
import type { SearchTerm, SearchText } from './text.ts';
import { singleLexemes, WordLookups, type WordForms } from './word-forms.ts';

/**
 * The OpenSearch engine: searches one alias of documents that hold the lexemes PostgreSQL stored
 * (opensearch-index.ts), fed from the change log by one feeder (opensearch-feed.ts), so every api
 * process asks the same index and keeps nothing but word lookups. The ranking is the reference's
 * (postgres-engine.ts) as a query: a score of 10 for a featured listing plus 3, 2 or 1 for the
 * best tier a group of words matches in (name or address, headline, anywhere), then most votes,
 * then the lower id. What the lexemes alone cannot answer as PostgreSQL would (quoted phrases,
 * words PostgreSQL splits in several lexemes) is asked of PostgreSQL, as the memory engine does.
 * Freshness: a write is searchable once the feed has written it and the index refreshed (about a
 * second; docs/search.md).
 */
export class OpenSearchSearch implements SearchEngine, Finder {
  readonly #client: Client;
  readonly #alias: string;
  readonly #sql: PostgresSearch;
  readonly #words: WordLookups;

  constructor(db: Db, client: Client, alias: string) {
    this.#client = client;
    this.#alias = alias;
    this.#sql = new PostgresSearch(db, { cacheTtlMs: 0 });
    this.#words = new WordLookups(db);
  }

  search(search: SearchQuery): Promise<SearchPage> {
    return run(this, normalised(search).query);
  }

  /** Waits until the index answers: the feed creates it on its first round. */
  async ready(): Promise<void> {
    await this.#client.cluster.health({ index: this.#alias, wait_for_status: 'yellow', timeout: '30s' });
  }

  /** Listings and their words changed: a misspelt word may now correct differently. */
  changed(): void {
    this.#words.forgetTypos();
  }

  async byVotes(siteId: number, offset: number, limit: number): Promise<Matches> {
    const [page] = await this.#ask([
      {
        query: { bool: { filter: [{ term: { site_id: siteId } }], should: [featuredNow()] } },
        from: offset,
        size: limit,
        track_total_hits: SEARCH_TOTAL_LIMIT + 1,
      },
    ]);
    return { rows: page!.hits.map((h) => h.row), total: page!.total, featured: featuredOf(page!.hits) };
  }

  /**
   * The tiers in one ranked list, cut as the reference cuts them: it counts the matches of the
   * whole listing (the `all` vector), lists featured matches first, then the name tier in full,
   * and asks a later tier only while the page is short of that count (capped: of the page).
   * A name or headline match need not match the whole vector (its english stemming differs from
   * a name's), so the list and the count are two searches, made in one request.
   */
  async matching(siteId: number, text: SearchText, offset: number, limit: number): Promise<Matches> {
    if (text.flat().some((t) => t.kind === 'phrase')) return this.#sql.matching(siteId, text, offset, limit);
    const forms = await this.#words.formsOf(text.flat().map((t) => t.text));
    if (!singleLexemes(forms)) return this.#sql.matching(siteId, text, offset, limit);
    const site = { term: { site_id: siteId } };
    const all = matchesIn('all', text, forms);
    const tier = (field: Field, score: number) => ({ constant_score: { filter: matchesIn(field, text, forms), boost: score } });
    const [ranked, counted] = await this.#ask([
      {
        query: {
          bool: {
            filter: [
              site,
              { bool: { should: [matchesIn('name', text, forms), matchesIn('lead', text, forms), all], minimum_should_match: 1 } },
            ],
            // A featured listing is listed only when the whole listing matches, and then first.
            must_not: [{ bool: { filter: [featuredThisWeek()], must_not: [all] } }],
            should: [{ dis_max: { queries: [tier('name', NAME), tier('lead', LEAD), tier('all', ALL)] } }, featuredNow()],
          },
        },
        from: 0,
        size: offset + limit,
        track_total_hits: false,
      },
      { query: { bool: { filter: [site, all] } }, size: 0, track_total_hits: SEARCH_TOTAL_LIMIT + 1 },
    ]);
    const total = counted!.total;
    const hits = ranked!.hits;
    const featured = hits.filter((h) => h.score >= FEATURED);
    const depth = offset + limit - featured.length;
    const cap = total > SEARCH_TOTAL_LIMIT ? depth : Math.min(depth, total - featured.length);
    const rows: Hit[] = hits.filter((h) => h.score === NAME);
    for (const score of [LEAD, ALL]) if (rows.length < cap) rows.push(...hits.filter((h) => h.score === score));
    return { rows: [...featured, ...rows].slice(offset, offset + limit).map((h) => h.row), total, featured: featuredOf(featured) };
  }

  correctTypos(text: SearchText): Promise<SearchText | null> {
    return this.#words.correctTypos(text);
  }

  /** Searches of the alias in one request, each sorted best score, then most votes, then lower id. */
  async #ask(searches: object[]): Promise<Array<{ hits: Hit[]; total: number }>> {
    const body = searches.flatMap((search) => [
      { index: this.#alias },
      { ...search, sort: [{ _score: 'desc' }, { votes: 'desc' }, { id: 'asc' }], _source: ['row', 'featured_weeks'] },
    ]);
    const { body: answer } = await this.#client.msearch({ body });
    return (answer.responses as Array<MsearchResponse>).map((r) => {
      if (r.error) throw new Error(`OpenSearch refused a search: ${JSON.stringify(r.error).slice(0, 300)}`);
      const total = typeof r.hits.total === 'number' ? r.hits.total : (r.hits.total?.value ?? 0);
      return {
        total: Math.min(total, SEARCH_TOTAL_LIMIT + 1),
        hits: r.hits.hits.map((h) => ({ score: h._score ?? 0, row: h._source.row, featuredWeeks: h._source.featured_weeks })),
      };
    });
  }
}

interface MsearchResponse {
  error?: unknown;
  hits: {
    total?: number | { value: number };
    hits: Array<{ _score: number | null; _source: Pick<ListingDocument, 'row' | 'featured_weeks'> }>;
  };
}

interface Hit {
  score: number;
  row: ListingDocument['row'];
  featuredWeeks: string[];
}

/** Scores: featured listings get FEATURED more; the best tier a listing matches in gives NAME, LEAD or ALL. */
const [FEATURED, NAME, LEAD, ALL] = [10, 3, 2, 1];

/** Ids of the hits featured this week. */
function featuredOf(hits: Hit[]): Set<number> {
  const week = isoWeekStart(new Date());
  return new Set(hits.filter((h) => h.featuredWeeks.includes(week)).map((h) => h.row.id));
}

type Field = 'name' | 'lead' | 'all';

/** Listings featured this week (UTC). */
function featuredThisWeek() {
  return { term: { featured_weeks: isoWeekStart(new Date()) } };
}

/** FEATURED more for listings featured this week, which puts them first. */
function featuredNow() {
  return { constant_score: { filter: featuredThisWeek(), boost: FEATURED } };
}

/**
 * Some group of the search matches in `field`: its words each start a lexeme there (in either
 * form, simple or english) and none of its excluded words is anywhere in the listing, so an
 * excluded word leaves a listing out of every tier (as vectorMatches in postgres-engine.ts).
 */
function matchesIn(field: Field, text: SearchText, forms: Map<string, WordForms>) {
  const groups = text.map((group) => ({
    bool: {
      filter: group.filter((t) => !t.negated).map((t) => startsLexeme(field, t, forms)),
      must_not: group.filter((t) => t.negated).map((t) => ({ terms: { all: lexemesOf(t, forms) } })),
    },
  }));
  return { bool: { should: groups, minimum_should_match: 1 } };
}

function startsLexeme(field: Field, term: SearchTerm, forms: Map<string, WordForms>) {
  return { bool: { should: lexemesOf(term, forms).map((prefix) => ({ prefix: { [field]: prefix } })), minimum_should_match: 1 } };
}

function lexemesOf(term: SearchTerm, forms: Map<string, WordForms>): string[] {
  const { simple, english } = forms.get(term.text)!;
  return [...new Set([...simple, ...english])];
}
