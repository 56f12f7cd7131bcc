import type { Db } from '../db/knex.ts';
import { PUBLIC_COLUMNS } from '../domain/listings/listing-row.ts';
import type { SearchEngine, SearchPage, SearchQuery } from '../domain/listings/search-port.ts';
import { isoWeekStart } from '../workflows/contracts/weeks.ts';
import type { IndexedListing, IndexMatches, IndexQuery, SearchLimits } from './index-types.ts';
import { SearchIndex } from './memory-index.ts';
import { pruneChanges, PRUNE_EVERY_MS, STALE_AFTER_MS } from './change-log.ts';
import { PostgresSearch } from './postgres-engine.ts';
import { normalised, run, SEARCH_TOTAL_LIMIT, type Finder, type Matches, type PublicListingRow } from './results.ts';
import type { SearchText } from './text.ts';
import { listingLexemes, singleLexemes, WordLookups, type ListingLexemesRow, type WordForms } from './word-forms.ts';

/**
 * The in-memory search engine of one api process: a SearchIndex loaded from PostgreSQL and kept
 * in step with it. Before each search it asks `search_changes` for what changed since its last
 * look (one indexed probe, usually no rows), in a look that started after the search arrived:
 * a write committed before a search is in its answer. Concurrent searches share one look.
 * A change notice (changed()) makes that look at once, and a timer every IDLE_LOOK_MS is the safety net.
 * Stemming stays PostgreSQL's: the index holds the lexemes PostgreSQL stored, and each typed
 * word's forms (simple and english) are asked of PostgreSQL once and remembered.
 */
export class MemorySearch implements SearchEngine, Finder {
  readonly #db: Db;
  /** Answers what the index cannot (quoted phrases, words PostgreSQL splits in several lexemes). */
  readonly #sql: PostgresSearch;
  #index = new SearchIndex();
  #loaded: Promise<void> | null = null;
  /** A load has completed: searches are answered from the index. */
  #serving = false;
  /** Changes of transactions at or after this xid may not have been seen yet. */
  #xmin = 0n;
  /** Changes already applied (xid:listing) that the next look will list again. */
  #applied = new Map<string, bigint>();
  #lastLook = 0;
  #lastPrune = 0;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #queued: Promise<void> | null = null;
  /** This week's featured listings by site, and the week they are of. */
  #featured = new Map<number, Set<number>>();
  #featuredWeek = '';
  readonly #words: WordLookups;
  /** Rows of listings recently served, least recently used dropped first; changed ones forgotten. */
  readonly #rows = new Map<number, PublicListingRow>();
  /** Counts change batches: rows read and answers made while one was applied are not kept. */
  #changes = 0;
  /** Recent answers, each valid while no change came since it was made. */
  readonly #answers = new Map<string, { changes: number; value: Promise<unknown> }>();
  /** Tests lower them to take every path on few listings. */
  limits: SearchLimits | undefined;
  /**
   * The index's layout being built, if any. A failed build leaves the current layout in place
   * (searches stay exact, only slower) and the next change starts another.
   */
  #layingOut: Promise<void> | undefined;

  constructor(db: Db) {
    this.#db = db;
    this.#sql = new PostgresSearch(db, { cacheTtlMs: 0 });
    this.#words = new WordLookups(db);
  }

  /**
   * Answers from the index once it holds every change committed before the search; until the
   * first load is done (25 s at a million listings), from PostgreSQL, so a starting process
   * serves at once.
   */
  search(search: SearchQuery): Promise<SearchPage> {
    if (!this.#serving) {
      this.load().catch(() => undefined);
      return this.#sql.search(search);
    }
    const { query, key } = normalised(search);
    return this.#remembered(key, () => run(this, query));
  }

  ready(): Promise<void> {
    return this.load();
  }

  /** Looks for changes now, once loaded (a change notice), so the next search finds them applied. */
  changed(): void {
    if (this.#loaded) this.sync().catch(() => undefined);
  }

  get size(): number {
    return this.#index.size;
  }

  /** Layouts of the index so far (each every few thousand written listings). */
  get layouts(): number {
    return this.#index.layouts;
  }

  /** Loads the index (once; concurrent callers share the load). */
  load(): Promise<void> {
    this.#loaded ??= this.#load().catch((error: unknown) => {
      this.#loaded = null;
      throw error;
    });
    return this.#loaded;
  }

  /** Waits for the layout being built in the background, if any; fails as it did (tests). */
  async laidOut(): Promise<void> {
    await this.#layingOut;
  }

  /** Brings the index up to every change committed before this call. */
  async sync(): Promise<void> {
    await this.load();
    // Changes are kept an hour: an index that has not looked for longer starts again.
    if (Date.now() - this.#lastLook > STALE_AFTER_MS) {
      this.#loaded = null;
      await this.load();
    }
    if (this.#queued) return this.#queued;
    if (!this.#running) return this.#start();
    this.#queued = this.#running
      .catch(() => undefined)
      .then(() => {
        this.#queued = null;
        return this.#start();
      });
    return this.#queued;
  }

  /** From the index when it can answer the search the way PostgreSQL would, else from PostgreSQL. */
  async matching(siteId: number, text: SearchText, offset: number, limit: number): Promise<Matches> {
    if (text.flat().some((t) => t.kind === 'phrase')) return this.#sql.matching(siteId, text, offset, limit);
    const forms = await this.#words.formsOf(text.flat().map((t) => t.text));
    const featured = await this.#featuredOf(siteId);
    // No await from here on: a reload cannot swap the index under the search.
    const query = queryOf(this.#index, text, forms);
    if (!query) return this.#sql.matching(siteId, text, offset, limit);
    const countLimit = SEARCH_TOTAL_LIMIT + 1;
    return this.#withRows(this.#index.search(siteId, query, featured, { offset, limit, countLimit, limits: this.limits }));
  }

  async byVotes(siteId: number, offset: number, limit: number): Promise<Matches> {
    const featured = await this.#featuredOf(siteId);
    return this.#withRows(this.#index.byVotes(siteId, featured, offset, limit, SEARCH_TOTAL_LIMIT + 1));
  }

  /** As correctTypos, each word's correction remembered until listings change. */
  correctTypos(text: SearchText): Promise<SearchText | null> {
    return this.#words.correctTypos(text);
  }

  /**
   * The answer of a search once the index is up to date: the one made earlier if nothing changed
   * since (popular searches repeat), else made by `answer`. Exact, unlike a time to live.
   */
  async #remembered<T>(key: string, answer: () => Promise<T>): Promise<T> {
    await this.sync();
    const changes = this.#changes;
    const id = JSON.stringify([key, isoWeekStart(new Date())]);
    const hit = this.#answers.get(id);
    this.#answers.delete(id);
    if (hit?.changes === changes) {
      this.#answers.set(id, hit);
      return hit.value as Promise<T>;
    }
    const value = answer();
    this.#answers.set(id, { changes, value });
    while (this.#answers.size > MAX_ANSWERS) this.#answers.delete(this.#answers.keys().next().value!);
    value.catch(() => this.#answers.delete(id));
    return value;
  }

  /** The index's answer with its listings' rows, in its order. */
  async #withRows(found: IndexMatches): Promise<Matches> {
    const rows = await this.#rowsOf(found.rows);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return {
      rows: found.rows.map((id) => byId.get(id)).filter((r) => r !== undefined),
      total: found.total,
      featured: new Set(found.featured),
    };
  }

  /** The rows of `ids` (in no order), read from PostgreSQL unless kept from an earlier search. */
  async #rowsOf(ids: number[]): Promise<PublicListingRow[]> {
    const kept: PublicListingRow[] = [];
    const missing: number[] = [];
    for (const id of ids) {
      const row = this.#rows.get(id);
      if (row) {
        this.#rows.delete(id);
        this.#rows.set(id, row);
        kept.push(row);
      } else missing.push(id);
    }
    if (missing.length === 0) return kept;
    const changes = this.#changes;
    const read = await this.#db('listings')
      .whereRaw('id = ANY(?)', [missing])
      .select(...PUBLIC_COLUMNS);
    if (changes === this.#changes) {
      for (const row of read) this.#rows.set(row.id, row);
      for (const id of this.#rows.keys()) {
        if (this.#rows.size <= MAX_ROWS) break;
        this.#rows.delete(id);
      }
    }
    return [...kept, ...read];
  }

  async #load(): Promise<void> {
    const index = new SearchIndex();
    let xmin = 0n;
    await this.#db.transaction(async (trx) => {
      // One snapshot for the whole load, and its xmin to look for changes from.
      await trx.raw('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const { rows } = await trx.raw('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin');
      xmin = BigInt(rows[0].xmin);
      for (let after = 0; ;) {
        const batch = await listingLexemes(trx).where('status', 'live').where('id', '>', after).orderBy('id').limit(LOAD_BATCH);
        for (const row of batch) index.put(indexed(row));
        if (batch.length < LOAD_BATCH) break;
        after = batch.at(-1)!.id;
      }
    });
    index.finishLoad();
    this.#index = index;
    this.#serving = true;
    this.#xmin = xmin;
    this.#applied.clear();
    this.#featuredWeek = '';
    this.#words.forgetTypos();
    this.#rows.clear();
    this.#changes++;
    this.#lastLook = Date.now();
    // Looks at least every minute, so an idle process does not fall behind the changes kept.
    if (!this.#timer) this.#timer = setInterval(() => this.sync().catch(() => undefined), IDLE_LOOK_MS).unref();
  }

  #start(): Promise<void> {
    const look = this.#look().finally(() => {
      if (this.#running === look) this.#running = null;
    });
    this.#running = look;
    return look;
  }

  async #look(): Promise<void> {
    const { rows } = await this.#db.raw(
      `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin,
              array(SELECT c.xid::text || ':' || c.listing_id FROM search_changes c WHERE c.xid >= ?::xid8) AS changes`,
      [this.#xmin.toString()],
    );
    const xmin = BigInt(rows[0].xmin);
    const fresh = (rows[0].changes as string[]).filter((c) => !this.#applied.has(c));
    if (fresh.length > 0) {
      const ids = [...new Set(fresh.map((c) => Number(c.split(':')[1])))];
      const found = await listingLexemes(this.#db).whereRaw('id = ANY(?)', [ids]);
      const seen = new Set<number>();
      for (const row of found) {
        this.#index.put(indexed(row));
        seen.add(row.id);
      }
      for (const id of ids) if (!seen.has(id)) this.#index.remove(id);
      // Not awaited: searches go on with the current layout while the next one is built.
      const building = this.#index.settle(this.limits);
      if (building) {
        building.catch(() => undefined);
        this.#layingOut = building;
      }
      for (const id of ids) this.#rows.delete(id);
      this.#changes++;
      for (const c of fresh) this.#applied.set(c, BigInt(c.split(':')[0]!));
      // Placements may have changed, and new words may correct typos differently.
      this.#featuredWeek = '';
      this.#words.forgetTypos();
    }
    for (const [c, xid] of this.#applied) if (xid < xmin) this.#applied.delete(c);
    this.#xmin = xmin;
    this.#lastLook = Date.now();
    if (this.#lastLook - this.#lastPrune > PRUNE_EVERY_MS) {
      this.#lastPrune = this.#lastLook;
      await pruneChanges(this.#db);
    }
  }

  async #featuredOf(siteId: number): Promise<ReadonlySet<number>> {
    const week = isoWeekStart(new Date());
    if (week !== this.#featuredWeek) {
      const rows = await this.#db('featured_placements').where({ week_start: week }).select('site_id', 'listing_id');
      const featured = new Map<number, Set<number>>();
      for (const r of rows as Array<{ site_id: number; listing_id: number }>) {
        if (!featured.has(r.site_id)) featured.set(r.site_id, new Set());
        featured.get(r.site_id)!.add(r.listing_id);
      }
      [this.#featured, this.#featuredWeek] = [featured, week];
    }
    return this.#featured.get(siteId) ?? NO_IDS;
  }
}

/** The search as term bits over the index's lexemes; null when the index cannot evaluate it as PostgreSQL would. */
function queryOf(index: SearchIndex, text: SearchText, forms: Map<string, WordForms>): IndexQuery | null {
  // One lexeme per config is what to_tsquery makes of a word as a single term.
  if (!singleLexemes(forms)) return null;
  const query: IndexQuery = { terms: [], groups: [] };
  for (const group of text) {
    const bits = { all: 0, none: 0 };
    for (const term of group) {
      const { simple, english } = forms.get(term.text)!;
      const lexemes = term.negated
        ? [...simple, ...english].map((l) => index.lexemeId(l)).filter((l) => l !== undefined)
        : [...new Set([...simple, ...english].flatMap((l) => index.lexemesStarting(l)))];
      bits[term.negated ? 'none' : 'all'] |= 1 << query.terms.length;
      query.terms.push(lexemes);
    }
    query.groups.push(bits);
  }
  return query;
}

function indexed(row: ListingLexemesRow): IndexedListing {
  return {
    id: row.id,
    siteId: row.site_id,
    votes: row.votes,
    live: row.status === 'live',
    name: row.name_lexemes,
    lead: row.lead_lexemes,
    all: row.all_lexemes,
  };
}

const NO_IDS: ReadonlySet<number> = new Set();
const LOAD_BATCH = 20_000;
/** About 1 KB each. */
const MAX_ROWS = 50_000;
const MAX_ANSWERS = 1_000;
const IDLE_LOOK_MS = 60_000;
