import { EntryPool } from './entry-pool.ts';
import { Evaluation } from './index-evaluation.ts';
import { layOut, type Layout, type LayoutSnapshot } from './index-layout.ts';
import {
  ALL,
  ANY,
  LIMITS,
  NAME,
  type IndexedListing,
  type IndexMatches,
  type IndexQuery,
  type IndexViews,
  type SearchLimits,
} from './index-types.ts';
import { candidates, NO_POSTINGS, termSets } from './layout-postings.ts';
import { Lexicon } from './lexicon.ts';
import { WrittenSlots } from './written-slots.ts';

/**
 * The in-memory search index: each live listing's lexemes as PostgreSQL computed them (from
 * `search_name`, `search_lead` and `search`), postings from lexemes to listings, common lexemes
 * also as bitsets. It answers the same questions as the SQL of postgres-engine.ts (the capped count, the
 * featured matches, each tier's best listings), with no database.
 *
 * Layout, for a million listings in a few hundred MB: listings live in slots (typed arrays by
 * slot), their lexemes in one pool, an entry per lexeme with the vectors holding it (bits:
 * name 1, lead 2, whole 4). The vectors are kept apart rather than assumed nested: PostgreSQL
 * 18.4 stored some `search_lead` vectors without lexemes of `search_name` (see the differential
 * test), and its statements use what is stored.
 *
 * Slots are laid out by site, then most votes first: postings and bitsets are then in vote
 * order, so a tier's best listings and the capped count are the first matches of a scan that
 * stops as soon as it has them (a common word's page is found in the first few thousand
 * listings, not by intersecting all of them). A listing written since the layout (new, other
 * words or votes) leaves the layout; written listings have postings of their own, from which a
 * search evaluates those holding its words, until there are enough of them to lay the index
 * out again.
 */
export class SearchIndex {
  #slots = 0;
  #ids = new Int32Array(1024);
  #site = new Int32Array(1024);
  #votes = new Int32Array(1024);
  #live = new Uint8Array(1024);
  /** Dedupes a term's candidates across its lexemes (valid where it is the current stamp). */
  #stamp = new Int32Array(1024);
  #stampNow = 0;
  #slotOf = new Map<number, number>();

  /** Each slot's lexemes with the vectors holding them. */
  readonly #entryPool = new EntryPool();

  readonly #lexicon = new Lexicon();
  /** Per lexeme: listings holding it in the name, lead, whole and any vector (an upper bound between layouts). */
  #counts = new Int32Array(4 * 1024);
  /** Per term bit: the terms a lexeme satisfies, set for one search at a time. */
  #mask = new Uint8Array(1024);

  /** Postings of the layout, read by searches until the next layout. */
  #postings = NO_POSTINGS;
  /** Slots as laid out and unchanged since: their postings, bitsets and place in vote order hold. */
  #clean = new Uint32Array(0);
  /** Each site's slots in the layout. */
  #range = new Map<number, { from: number; to: number }>();
  /** Live slots written since the layout: out of the layout's postings, bitsets and vote order. */
  readonly #written = new WrittenSlots(1024, (a, b) => this.#before(a, b));
  #loading = true;
  /**
   * Zeroed bitsets over the layout's words that searches borrow and give back: a million
   * listings make each 125 KB, and allocating a few per search made V8 collect its whole heap
   * every few hundred searches (external memory pressure).
   */
  #spare: Uint32Array[] = [];
  /** The layout being built in the background, and the listings written since its snapshot (null: removed). */
  #building: { done: Promise<void>; writes: Map<number, IndexedListing | null> } | null = null;
  #layouts = 0;

  get size(): number {
    return this.#slotOf.size;
  }

  /** Layouts made since the index was created (the load's included). */
  get layouts(): number {
    return this.#layouts;
  }

  /** Adds or replaces a listing; a listing that is not live stays out of every search. */
  put(listing: IndexedListing): void {
    this.#building?.writes.set(listing.id, listing);
    let slot = this.#slotOf.get(listing.id);
    const entries = this.#entries(listing);
    if (slot !== undefined && this.#same(slot, listing, entries)) return;
    const written = slot !== undefined && this.#written.has(slot);
    if (written) this.#written.delete(slot!, this.#site[slot!]!); // found by its votes before they change
    slot ??= this.#newSlot(listing.id);
    const newEntries = !this.#entryPool.same(slot, entries);
    if (newEntries) this.#setEntries(slot, entries);
    this.#site[slot] = listing.siteId;
    this.#votes[slot] = listing.votes;
    this.#live[slot] = listing.live ? 1 : 0;
    if (this.#loading) return;
    this.#unclean(slot);
    if (!listing.live) return;
    // A written slot's postings still hold unless its lexemes changed (votes often do alone).
    const entriesNow = !written || newEntries ? this.#entryPool.of(slot) : null;
    this.#written.add(slot, listing.siteId, entriesNow);
  }

  /** Takes a listing out of search (deleted, or gone from the database). */
  remove(id: number): void {
    this.#building?.writes.set(id, null);
    const slot = this.#slotOf.get(id);
    if (slot === undefined || this.#live[slot] === 0) return;
    this.#written.delete(slot, this.#site[slot]!);
    this.#live[slot] = 0;
    this.#unclean(slot);
  }

  /** Ends the bulk load: lays the index out once instead of per listing. */
  finishLoad(): void {
    const kept: number[] = [];
    for (let slot = 0; slot < this.#slots; slot++) if (this.#live[slot] === 1) kept.push(slot);
    kept.sort((a, b) => this.#site[a]! - this.#site[b]! || this.#before(a, b));
    const build = layOut(this.#snapshot(kept));
    let step = build.next();
    while (!step.done) step = build.next();
    this.#swap(step.value);
    this.#lexicon.sort();
    this.#loading = false;
  }

  /**
   * Lays the index out again when too many listings were written since the last layout. Why in
   * the background: at a million listings a layout takes over a second, and done at once it held
   * up every search meanwhile. So it is built in slices of at most `sliceMs` from a snapshot
   * while searches keep using the current layout and writes keep coming; once built it is
   * swapped in and the listings written meanwhile are put again. Returns the layout being built
   * (null when none is due), for those who must wait for it.
   */
  settle(limits: SearchLimits = LIMITS): Promise<void> | null {
    if (this.#building) return this.#building.done;
    if (this.#written.slots.size <= limits.changed) return null;
    const build = layOut(this.#snapshot(this.#liveInVoteOrder()));
    // Marked as building before the build starts: a build that ends within its first slice
    // (no await on the way) clears the mark before its promise is even returned.
    const building = { done: Promise.resolve(), writes: new Map<number, IndexedListing | null>() };
    this.#building = building;
    building.done = this.#build(build, building.writes, limits);
    return building.done;
  }

  /** Runs a layout's build in slices, swaps it in, then puts again the listings written meanwhile. */
  async #build(build: ReturnType<typeof layOut>, writes: Map<number, IndexedListing | null>, limits: SearchLimits): Promise<void> {
    try {
      let step = build.next();
      for (let sliceStart = performance.now(); !step.done; step = build.next()) {
        if (performance.now() - sliceStart < limits.sliceMs) continue;
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      this.#swap(step.value);
    } finally {
      this.#building = null;
    }
    for (const [id, listing] of writes)
      if (listing) this.put(listing);
      else this.remove(id);
  }

  /** Ids of every lexeme starting with `prefix`. */
  lexemesStarting(prefix: string): number[] {
    return this.#lexicon.starting(prefix);
  }

  lexemeId(lexeme: string): number | undefined {
    return this.#lexicon.id(lexeme);
  }

  /**
   * Live listings of a site matching the search, as the SQL's `matching` cuts them: featured
   * matches (best tier, then votes), the capped count, and the tiers without the featured in
   * the order and depth the SQL asks for them.
   */
  search(
    siteId: number,
    query: IndexQuery,
    featured: ReadonlySet<number>,
    cut: { offset: number; limit: number; countLimit: number; limits?: SearchLimits },
  ): IndexMatches {
    this.#setMask(query, true);
    const evaluation = new Evaluation(this.#views(), siteId, query, featured, cut.limits ?? LIMITS);
    try {
      return evaluation.run(cut.offset, cut.limit, cut.countLimit);
    } finally {
      evaluation.finish();
      this.#setMask(query, false);
    }
  }

  /** Live listings of a site, most voted first: the featured first, then the others. */
  byVotes(siteId: number, featured: ReadonlySet<number>, offset: number, limit: number, countLimit: number): IndexMatches {
    const first = [...featured]
      .map((id) => this.#slotOf.get(id))
      .filter((s) => s !== undefined && this.#live[s] === 1 && this.#site[s] === siteId)
      .sort((a, b) => this.#before(a!, b!))
      .map((s) => this.#ids[s!]!);
    const rows = first.slice(offset, offset + limit);
    let skip = Math.max(0, offset - first.length);
    let total = 0;
    this.#eachInVoteOrder(siteId, (slot) => {
      if (rows.length >= limit && total >= countLimit) return false;
      total++;
      const id = this.#ids[slot]!;
      if (rows.length < limit && !featured.has(id)) {
        if (skip > 0) skip--;
        else rows.push(id);
      }
      return true;
    });
    return { total: Math.min(total, countLimit), featured: first, rows };
  }

  /**
   * Visits a site's live slots, most voted first (the layout's unchanged ones merged with the
   * written ones), until `visit` returns false.
   */
  #eachInVoteOrder(siteId: number, visit: (slot: number) => boolean): void {
    const { from, to } = this.#range.get(siteId) ?? { from: 0, to: 0 };
    const written = this.#written.order(siteId);
    const clean = this.#clean;
    let w = 0;
    for (let slot = from; slot < to; slot++) {
      if ((clean[slot >> 5]! & (1 << (slot & 31))) === 0) continue;
      while (w < written.length && this.#before(written[w]!, slot) < 0) if (!visit(written[w++]!)) return;
      if (!visit(slot)) return;
    }
    while (w < written.length) if (!visit(written[w++]!)) return;
  }

  /** Every live slot by site, then most votes first: what a new layout lays out. */
  #liveInVoteOrder(): Int32Array {
    const kept = new Int32Array(this.#slots);
    let n = 0;
    const sites = [...new Set([...this.#range.keys(), ...this.#written.sites()])].sort((a, b) => a - b);
    for (const site of sites) this.#eachInVoteOrder(site, (slot) => ((kept[n++] = slot), true));
    return kept.subarray(0, n);
  }

  /** The slots as they are now and the lookups, for an evaluation of one search to read directly. */
  #views(): IndexViews {
    return {
      ids: this.#ids,
      site: this.#site,
      live: this.#live,
      clean: this.#clean,
      changed: this.#written.slots,
      writtenBits: (query: IndexQuery, siteId: number) => this.#written.bits(query, siteId, this.#live, this.#site),
      range: this.#range,
      slotOf: this.#slotOf,
      bits: (slot: number) => this.#bits(slot),
      estimate: (term: number[], vector: number) => this.#estimate(term, vector),
      candidates: (term: number[], vector: number, siteId: number, into: number[]) => {
        const slots = { stamps: this.#stamp, stamp: ++this.#stampNow, clean: this.#clean, site: this.#site };
        candidates(this.#postings, term, vector, siteId, slots, into);
      },
      termSets: (term: number[], vector: number, from: number, to: number, borrow: () => Uint32Array) =>
        termSets(this.#postings, this.#counts, term, vector, from, to, borrow),
      borrow: () => this.#spare.pop() ?? new Uint32Array(this.#clean.length),
      /** Takes back a borrowed bitset whose words [0, used) may be set. */
      giveBack: (words: Uint32Array, used: number) => {
        words.fill(0, 0, used);
        this.#spare.push(words);
      },
      before: (a: number, b: number) => this.#before(a, b),
    };
  }

  /** Which terms a slot's name, lead and whole vector satisfy: three bytes of term bits. */
  #bits(slot: number): number {
    const { pool, start, end } = this.#entryPool;
    const mask = this.#mask;
    let name = 0;
    let lead = 0;
    let all = 0;
    for (let i = start[slot]!, stop = end[slot]!; i < stop; i++) {
      const entry = pool[i]!;
      const m = mask[entry >> 3]!;
      if (m === 0) continue;
      if (entry & 1) name |= m;
      if (entry & 2) lead |= m;
      if (entry & 4) all |= m;
    }
    return name | (lead << 8) | (all << 16);
  }

  #setMask(query: IndexQuery, on: boolean): void {
    for (const [j, term] of query.terms.entries()) {
      const bit = 1 << j;
      for (const l of term) this.#mask[l] = on ? this.#mask[l]! | bit : 0;
    }
  }

  /** Listings holding one of the term's lexemes in a vector (ANY: in any), an upper bound. */
  #estimate(term: number[], vector: number): number {
    let n = 0;
    for (const l of term) n += this.#counts[l * 4 + vector]!;
    return n;
  }

  /** What a new layout of `kept` is built from: copies of the slots, and the pool as it is (it only grows or is replaced). */
  #snapshot(kept: ArrayLike<number>): LayoutSnapshot {
    const { start: starts, end: ends, pool, used } = this.#entryPool;
    const [ids, site, votes, start, end] = [this.#ids, this.#site, this.#votes, starts, ends].map((a) => a.slice(0, this.#slots));
    return {
      kept,
      ids: ids!,
      site: site!,
      votes: votes!,
      start: start!,
      end: end!,
      pool,
      poolUsed: used,
      lexemes: this.#lexicon.size,
      countsRoom: this.#counts.length,
    };
  }

  /** Makes a built layout the index's. Listings written since its snapshot must be put again. */
  #swap(layout: Layout): void {
    const { n, size } = layout;
    this.#layouts++;
    [this.#ids, this.#site, this.#votes] = [layout.ids, layout.site, layout.votes];
    this.#live = new Uint8Array(size).fill(1, 0, n);
    this.#stamp = new Int32Array(size);
    this.#stampNow = 0;
    this.#slots = n;
    this.#slotOf = layout.slotOf;
    this.#range = layout.range;
    this.#clean = layout.clean;
    this.#written.reset(size);
    this.#spare = [];
    // Entries added to the pool after the snapshot belong to the listings put again: their room is reused.
    this.#entryPool.adopt(layout);
    this.#postings = layout.postings;
    // Lexemes new since the snapshot have no postings yet, but room for counts.
    this.#counts = layout.counts.length < this.#counts.length ? grow(layout.counts, this.#counts.length) : layout.counts;
  }

  /** Most votes first, then the lower id (as `ORDER BY votes DESC, id`). */
  #before(a: number, b: number): number {
    return this.#votes[b]! - this.#votes[a]! || this.#ids[a]! - this.#ids[b]!;
  }

  #unclean(slot: number): void {
    if (slot < this.#clean.length * 32) this.#clean[slot >> 5]! &= ~(1 << (slot & 31));
  }

  /** Whether a put would change nothing the index holds. */
  #same(slot: number, listing: IndexedListing, entries: number[]): boolean {
    return (
      this.#site[slot] === listing.siteId &&
      this.#votes[slot] === listing.votes &&
      this.#live[slot] === (listing.live ? 1 : 0) &&
      this.#entryPool.same(slot, entries)
    );
  }

  #newSlot(id: number): number {
    const slot = this.#slots++;
    if (slot >= this.#ids.length) {
      const size = this.#ids.length * 2;
      this.#ids = grow(this.#ids, size);
      this.#site = grow(this.#site, size);
      this.#votes = grow(this.#votes, size);
      this.#live = grow(this.#live, size);
      this.#entryPool.grow(size);
      this.#stamp = grow(this.#stamp, size);
      this.#written.grow(size);
    }
    this.#ids[slot] = id;
    this.#entryPool.start[slot] = this.#entryPool.end[slot] = 0;
    this.#slotOf.set(id, slot);
    return slot;
  }

  /** Pool entries of a listing: each lexeme id with the vectors holding it, in id order. */
  #entries(listing: IndexedListing): number[] {
    const bits = new Map<number, number>();
    for (const [v, lexemes] of [listing.name, listing.lead, listing.all].entries()) {
      for (const lexeme of lexemes) {
        const l = this.#intern(lexeme);
        bits.set(l, (bits.get(l) ?? 0) | (1 << v));
      }
    }
    return [...bits].map(([l, b]) => l * 8 + b).sort((a, b) => a - b);
  }

  #intern(lexeme: string): number {
    const id = this.#lexicon.intern(lexeme);
    if (id >= this.#mask.length) {
      this.#mask = grow(this.#mask, this.#mask.length * 2);
      this.#counts = grow(this.#counts, this.#mask.length * 4);
    }
    return id;
  }

  /** Stores a slot's new entries; its new lexemes count towards the estimates until the next layout. */
  #setEntries(slot: number, entries: number[]): void {
    const had = this.#loading ? null : new Set(this.#entryPool.of(slot));
    this.#entryPool.set(slot, entries, this.#slots);
    if (!had) return;
    for (const entry of entries) {
      if (had.has(entry)) continue;
      const l = entry >> 3;
      for (let v = NAME; v <= ALL; v++) if (entry & (1 << v)) this.#counts[l * 4 + v]!++;
      this.#counts[l * 4 + ANY]!++;
    }
  }
}

function grow<T extends Int32Array | Uint8Array>(array: T, size: number): T {
  const bigger = new (array.constructor as new (n: number) => T)(size);
  bigger.set(array);
  return bigger;
}
