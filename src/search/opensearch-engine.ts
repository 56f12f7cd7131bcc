import type { Client } from '@opensearch-project/opensearch';
import type { Db } from '../db/knex.ts';
import type { SearchEngine, SearchPage, SearchQuery } from '../domain/listings/search-port.ts';
import { isoWeekStart } from '../workflows/contracts/weeks.ts';
import type { ListingDocument } from './opensearch-index.ts';
import { PostgresSearch } from './postgres-engine.ts';
import { TtlCache } from '../cache/ttl-cache.ts';
import { normalised, run, SEARCH_RESULT_LIMIT, SEARCH_TOTAL_LIMIT, type Finder, type Matches } from './results.ts';
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
  /** Popular queries repeat: answers are reused for `cacheTtlMs`, and dropped at a change notice (the feed sends one after it writes). */
  readonly #answers: TtlCache<SearchPage>;

  constructor(db: Db, client: Client, settings: { alias: string; cacheTtlMs: number }) {
    this.#client = client;
    this.#alias = settings.alias;
    this.#sql = new PostgresSearch(db, { cacheTtlMs: 0 });
    this.#words = new WordLookups(db);
    this.#answers = new TtlCache({ ttlMs: settings.cacheTtlMs, maxEntries: 2_000 });
  }

  /**
   * From OpenSearch; from PostgreSQL (the same answer, slower) while it cannot answer: before the
   * feed has built the index, or while the node is down, so a search never fails for it.
   */
  search(search: SearchQuery): Promise<SearchPage> {
    const { query, key } = normalised(search);
    return this.#answers.get(key, () =>
      run(this, query).catch(() => {
        this.answeredByPostgres++;
        return this.#sql.search(query);
      }),
    );
  }

  /** Searches OpenSearch could not answer (tests hold it at 0 where the node is up). */
  answeredByPostgres = 0;

  /** Waits until the index answers: the feed creates it on its first round. */
  async ready(): Promise<void> {
    await this.#client.cluster.health({ index: this.#alias, wait_for_status: 'yellow', timeout: '30s' });
  }

  /** Listings changed, or the feed wrote: kept answers and typo corrections may be out of date. */
  changed(): void {
    this.#answers.clear();
    this.#words.forgetTypos();
  }

  /** As the reference: this week's featured listings, then the rest most voted first. */
  async byVotes(siteId: number, offset: number, limit: number): Promise<Matches> {
    const site = { term: { site_id: siteId } };
    const [featured, rest, counted] = await this.#ask([
      { query: { bool: { filter: [site, featuredThisWeek()] } }, size: SEARCH_RESULT_LIMIT },
      { query: { bool: { filter: [site], must_not: [featuredThisWeek()] } }, size: offset + limit },
      { query: { bool: { filter: [site] } }, size: 0, track_total_hits: SEARCH_TOTAL_LIMIT + 1 },
    ]);
    const first = featured!.hits.slice(offset, offset + limit);
    const skip = Math.max(0, offset - featured!.hits.length);
    const rows = [...first, ...rest!.hits.slice(skip, skip + limit - first.length)].map((h) => h.row);
    return { rows, total: counted!.total, featured: new Set(featured!.hits.map((h) => h.row.id)) };
  }

  /**
   * The reference's cut (postgres-engine.ts) from one request of vote-ordered searches, each
   * stopping at the hits it needs (the index is stored most voted first): the count of whole-listing
   * matches (to 101), the featured matches (best tier first), and each tier's best offset + limit
   * (the name tier; the headline tier without name matches; the rest). A later tier is used only
   * while the page is short of the count (capped: of the page), as the reference asks it.
   */
  async matching(siteId: number, text: SearchText, offset: number, limit: number): Promise<Matches> {
    if (text.flat().some((t) => t.kind === 'phrase')) return this.#sql.matching(siteId, text, offset, limit);
    const forms = await this.#words.formsOf(text.flat().map((t) => t.text));
    if (!singleLexemes(forms)) return this.#sql.matching(siteId, text, offset, limit);
    const site = { term: { site_id: siteId } };
    const [name, lead, all] = (['name', 'lead', 'all'] as const).map((field) => matchesIn(field, text, forms));
    const need = offset + limit;
    const tier = (match: object, before: object[]) => ({
      query: { bool: { filter: [site, match], must_not: [featuredThisWeek(), ...before] } },
      size: need,
    });
    const byTier = { dis_max: { queries: [constant(name, 3), constant(lead, 2), constant(all, 1)] } };
    const [counted, featuredHits, ...tiers] = await this.#ask([
      { query: { bool: { filter: [site, all] } }, size: 0, track_total_hits: SEARCH_TOTAL_LIMIT + 1 },
      { query: { bool: { filter: [site, all, featuredThisWeek()], should: [byTier] } }, size: SEARCH_RESULT_LIMIT, byScore: true },
      tier(name, []),
      tier(lead, [name]),
      tier(all, [name, lead]),
    ]);
    const total = counted!.total;
    const featured = featuredHits!.hits;
    const depth = need - featured.length;
    const cap = total > SEARCH_TOTAL_LIMIT ? depth : Math.min(depth, total - featured.length);
    const rows: Hit[] = tiers[0]!.hits.slice(0, Math.max(0, depth));
    for (const later of tiers.slice(1)) if (rows.length < cap) rows.push(...later.hits.slice(0, depth - rows.length));
    return {
      rows: [...featured, ...rows].slice(offset, offset + limit).map((h) => h.row),
      total,
      featured: new Set(featured.map((h) => h.row.id)),
    };
  }

  correctTypos(text: SearchText): Promise<SearchText | null> {
    return this.#words.correctTypos(text);
  }

  /**
   * Searches of the alias in one request, most voted first (then the lower id; `byScore`: best
   * score first), counting hits only where a search asks for a total.
   */
  async #ask(searches: Array<{ query: object; size: number; track_total_hits?: number; byScore?: boolean }>): Promise<Answer[]> {
    const body = searches.flatMap(({ byScore, ...search }) => [
      { index: this.#alias },
      {
        track_total_hits: false,
        ...search,
        sort: [...(byScore ? [{ _score: 'desc' }] : []), { votes: 'desc' }, { id: 'asc' }],
        _source: search.size > 0 ? ['row'] : false,
      },
    ]);
    const { body: answer } = await this.#client.msearch({ body });
    return (answer.responses as MsearchResponse[]).map((r) => {
      if (r.error) throw new Error(`OpenSearch refused a search: ${JSON.stringify(r.error).slice(0, 300)}`);
      const total = typeof r.hits.total === 'number' ? r.hits.total : (r.hits.total?.value ?? 0);
      return { total: Math.min(total, SEARCH_TOTAL_LIMIT + 1), hits: r.hits.hits.map((h) => ({ row: h._source.row })) };
    });
  }
}

interface MsearchResponse {
  error?: unknown;
  hits: { total?: number | { value: number }; hits: Array<{ _source: Pick<ListingDocument, 'row'> }> };
}

interface Hit {
  row: ListingDocument['row'];
}

interface Answer {
  hits: Hit[];
  total: number;
}

type Field = 'name' | 'lead' | 'all';

/** Listings featured this week (UTC). */
function featuredThisWeek() {
  return { term: { featured_weeks: isoWeekStart(new Date()) } };
}

function constant(filter: object, boost: number) {
  return { constant_score: { filter, boost } };
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
