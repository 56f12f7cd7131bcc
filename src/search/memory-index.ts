/**
 * The in-memory search index: each live listing's lexemes as PostgreSQL computed them (from
 * `search_name`, `search_lead` and `search`), postings from lexemes to listings, common lexemes
 * also as bitsets. It answers the same questions as the SQL of search.ts (the capped count, the
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
 * when its `all` terms match and none of its `none` terms does (bit masks over terms).
 */
export interface IndexQuery {
  terms: number[][];
  groups: Array<{ all: number; none: number }>;
}

/** What search.ts needs of one search, listing ids best first. */
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

const LIMITS: SearchLimits = { candidates: 2_000, window: 128, changed: 4_096, sliceMs: 8 };
/** A layout being built looks at the clock every this many + 1 slots (a power of two, less one). */
const SLICE_SLOTS = 0x1fff;

const NAME = 0;
const LEAD = 1;
const ALL = 2;
/** Counts and candidates of any vector. */
const ANY = 3;

export class SearchIndex {
  #slots = 0;
  #ids = new Int32Array(1024);
  #site = new Int32Array(1024);
  #votes = new Int32Array(1024);
  #live = new Uint8Array(1024);
  #start = new Int32Array(1024);
  #end = new Int32Array(1024);
  /** Dedupes a term's candidates across its lexemes (valid where it is the current stamp). */
  #stamp = new Int32Array(1024);
  #stampNow = 0;
  #slotOf = new Map<number, number>();

  #pool = new Int32Array(1 << 16);
  #poolUsed = 0;
  #poolGarbage = 0;

  readonly #lexemes: string[] = [];
  readonly #lexemeId = new Map<string, number>();
  /** Lexeme ids in string order, for prefixes. */
  #sorted: number[] = [];
  /** Per lexeme: listings holding it in the name, lead, whole and any vector (an upper bound between layouts). */
  #counts = new Int32Array(4 * 1024);
  /** Per term bit: the terms a lexeme satisfies, set for one search at a time. */
  #mask = new Uint8Array(1024);

  /** Postings of the layout: lexeme l's entries are #postings[#postingStart[l] .. #postingStart[l + 1]], in slot order within each part. */
  #postingStart = new Int32Array(1);
  /** How many of lexeme l's entries (the first ones) hold it in the name; in the name or lead. */
  #postingNamed = new Int32Array(0);
  #postingLed = new Int32Array(0);
  #postings = new Int32Array(0);
  /** Bitsets (name, lead, whole) of the layout's common lexemes. */
  #dense = new Map<number, Bitsets>();
  /** Slots as laid out and unchanged since: their postings, bitsets and place in vote order hold. */
  #clean = new Uint32Array(0);
  /** Each site's slots in the layout. */
  #range = new Map<number, { from: number; to: number }>();
  /** Live slots written since the layout: out of the layout's postings and bitsets. */
  readonly #changed = new Set<number>();
  /**
   * Postings of the written slots by lexeme (slot, its version, vector bits), so that a search
   * evaluates only the written listings holding its words, not all of them (at 1M listings,
   * evaluating 4,096 cost 0.5 ms a search). Entries of an older version of a slot are stale.
   */
  #written = new Map<number, number[]>();
  /** Per slot: how many times its postings were added to #written since the layout. */
  #version = new Int32Array(1024);
  /** The written live slots (#changed) of each site, most voted first (ties: lower id). */
  #writtenOrder = new Map<number, number[]>();
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
    const written = slot !== undefined && this.#changed.has(slot);
    if (written) this.#unorder(slot!); // found by its votes before they change
    slot ??= this.#newSlot(listing.id);
    const newEntries = !this.#sameEntries(slot, entries);
    if (newEntries) this.#setEntries(slot, entries);
    this.#site[slot] = listing.siteId;
    this.#votes[slot] = listing.votes;
    this.#live[slot] = listing.live ? 1 : 0;
    if (this.#loading) return;
    this.#unclean(slot);
    if (!listing.live) {
      this.#changed.delete(slot);
      return;
    }
    // A written slot's postings still hold unless its lexemes changed (votes often do alone).
    if (!written || newEntries) this.#addWritten(slot);
    this.#changed.add(slot);
    this.#reorder(slot);
  }

  #addWritten(slot: number): void {
    const version = ++this.#version[slot]!;
    for (let i = this.#start[slot]!, end = this.#end[slot]!; i < end; i++) {
      const entry = this.#pool[i]!;
      let list = this.#written.get(entry >> 3);
      if (!list) this.#written.set(entry >> 3, (list = []));
      list.push(slot, version, entry & 7);
    }
  }

  /**
   * The written live slots of a site holding a word of the search, with their term bits (as
   * #bits); null when a group has no positive word (then a slot with none of its words matches).
   */
  #writtenBits(query: IndexQuery, siteId: number): Map<number, number> | null {
    if (query.groups.some((g) => g.all === 0)) return null;
    const found = new Map<number, number>();
    const [version, live, site] = [this.#version, this.#live, this.#site];
    for (const [j, term] of query.terms.entries()) {
      const bit = 1 << j;
      for (const l of term) {
        const list = this.#written.get(l);
        if (!list) continue;
        for (let i = 0; i < list.length; i += 3) {
          const slot = list[i]!;
          if (version[slot] !== list[i + 1] || live[slot] !== 1 || site[slot] !== siteId) continue;
          const v = list[i + 2]!;
          const bits = (v & 1 ? bit : 0) | (v & 2 ? bit << 8 : 0) | (v & 4 ? bit << 16 : 0);
          found.set(slot, (found.get(slot) ?? 0) | bits);
        }
      }
    }
    return found;
  }

  /** Takes a listing out of search (deleted, or gone from the database). */
  remove(id: number): void {
    this.#building?.writes.set(id, null);
    const slot = this.#slotOf.get(id);
    if (slot === undefined || this.#live[slot] === 0) return;
    if (this.#changed.has(slot)) this.#unorder(slot);
    this.#live[slot] = 0;
    this.#unclean(slot);
    this.#changed.delete(slot);
  }

  /** Ends the bulk load: lays the index out once instead of per listing. */
  finishLoad(): void {
    const kept: number[] = [];
    for (let slot = 0; slot < this.#slots; slot++) if (this.#live[slot] === 1) kept.push(slot);
    kept.sort((a, b) => this.#site[a]! - this.#site[b]! || this.#before(a, b));
    const build = this.#build(kept);
    let step = build.next();
    while (!step.done) step = build.next();
    this.#swap(step.value);
    this.#sorted = this.#lexemes.map((_, i) => i).sort((a, b) => compare(this.#lexemes[a]!, this.#lexemes[b]!));
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
    if (this.#changed.size <= limits.changed) return null;
    const writes = new Map<number, IndexedListing | null>();
    const build = this.#build(this.#liveInVoteOrder());
    const done = (async () => {
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
    })();
    this.#building = { done, writes };
    return done;
  }

  /** Ids of every lexeme starting with `prefix`. */
  lexemesStarting(prefix: string): number[] {
    let [lo, hi] = [0, this.#sorted.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(this.#lexemes[this.#sorted[mid]!]!, prefix) < 0) lo = mid + 1;
      else hi = mid;
    }
    const ids: number[] = [];
    for (let i = lo; i < this.#sorted.length && this.#lexemes[this.#sorted[i]!]!.startsWith(prefix); i++) ids.push(this.#sorted[i]!);
    return ids;
  }

  lexemeId(lexeme: string): number | undefined {
    return this.#lexemeId.get(lexeme);
  }

  /**
   * Live listings of a site matching the search, as search.ts's `matching` cuts them: featured
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
    const evaluation = new Evaluation(this, siteId, query, featured, cut.limits ?? LIMITS);
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
    const written = this.#writtenOrder.get(siteId) ?? [];
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
    const sites = [...new Set([...this.#range.keys(), ...this.#writtenOrder.keys()])].sort((a, b) => a - b);
    for (const site of sites) this.#eachInVoteOrder(site, (slot) => ((kept[n++] = slot), true));
    return kept.subarray(0, n);
  }

  // Evaluation reads the slots directly: these are its views.
  /** @internal */ get internals() {
    return {
      ids: this.#ids,
      site: this.#site,
      live: this.#live,
      clean: this.#clean,
      changed: this.#changed,
      writtenBits: (query: IndexQuery, siteId: number) => this.#writtenBits(query, siteId),
      range: this.#range,
      slotOf: this.#slotOf,
      bits: (slot: number) => this.#bits(slot),
      estimate: (term: number[], vector: number) => this.#estimate(term, vector),
      candidates: (term: number[], vector: number, siteId: number, into: number[]) => this.#candidates(term, vector, siteId, into),
      termSets: (term: number[], vector: number, from: number, to: number, borrow: () => Uint32Array) =>
        this.#termSets(term, vector, from, to, borrow),
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
    const [pool, mask] = [this.#pool, this.#mask];
    let name = 0;
    let lead = 0;
    let all = 0;
    for (let i = this.#start[slot]!, end = this.#end[slot]!; i < end; i++) {
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

  /** Clean live slots of the site holding one of the term's lexemes in a vector (ANY: in any), each once. */
  #candidates(term: number[], vector: number, siteId: number, into: number[]): void {
    const stamp = ++this.#stampNow;
    const bits = vector === ANY ? 7 : 1 << vector;
    const [stamps, clean, site, postings] = [this.#stamp, this.#clean, this.#site, this.#postings];
    for (const l of term) {
      const [from, end] = this.#block(l, vector);
      for (let i = from; i < end; i++) {
        const entry = postings[i]!;
        const slot = entry >> 3;
        if ((entry & bits) === 0 || stamps[slot] === stamp) continue;
        stamps[slot] = stamp;
        if ((clean[slot >> 5]! & (1 << (slot & 31))) !== 0 && site[slot] === siteId) into.push(slot);
      }
    }
  }

  /**
   * The term in a vector over bitset words [from, to) of the layout: its rare lexemes' postings
   * set in one borrowed bitset (indexed from `from`), its common lexemes' own bitsets (indexed
   * from 0; those with no listing in the vector left out), to be OR-ed word by word.
   */
  #termSets(
    term: number[],
    vector: number,
    from: number,
    to: number,
    borrow: () => Uint32Array,
  ): { rare: Uint32Array | null; common: Uint32Array[] } {
    let rare: Uint32Array | null = null;
    const common: Uint32Array[] = [];
    const bit = 1 << vector;
    const postings = this.#postings;
    for (const l of term) {
      const dense = this.#dense.get(l);
      if (dense) {
        // An english stem is in no name (simple), an unstemmed word in few headlines.
        if (this.#counts[l * 4 + vector]! > 0) common.push(dense[vector]!);
        continue;
      }
      const [start, end] = this.#block(l, vector);
      if (start === end) continue;
      rare ??= borrow();
      for (let i = start; i < end; i++) {
        const entry = postings[i]!;
        const w = (entry >> 8) - from;
        if ((entry & bit) !== 0 && w >= 0 && w < to - from) rare[w]! |= 1 << ((entry >> 3) & 31);
      }
    }
    return { rare, common };
  }

  /** The part of lexeme l's postings that can hold it in a vector. */
  #block(l: number, vector: number): [number, number] {
    if (l >= this.#postingNamed.length) return [0, 0]; // a lexeme new since the layout
    const from = this.#postingStart[l]!;
    if (vector === NAME) return [from, from + this.#postingNamed[l]!];
    if (vector === LEAD) return [from, from + this.#postingLed[l]!];
    return [from, this.#postingStart[l + 1]!];
  }

  /**
   * A new layout of `kept` (live slots by site, then most votes first): its slots, postings,
   * bitsets and exact counts. Everything it reads is copied or left untouched by later writes
   * before the first yield (the pool only grows, or is replaced by a compacted copy), so the
   * rest may run in slices while searches and writes go on.
   */
  *#build(kept: ArrayLike<number>): Generator<void, Layout> {
    const n = kept.length;
    const [oldIds, oldSite, oldVotes, oldStart, oldEnd] = [this.#ids, this.#site, this.#votes, this.#start, this.#end].map((a) =>
      a.slice(0, this.#slots),
    ) as [Int32Array, Int32Array, Int32Array, Int32Array, Int32Array];
    const [pool, poolUsed, lexemes, countsRoom] = [this.#pool, this.#poolUsed, this.#lexemes.length, this.#counts.length];
    yield;

    const size = Math.max(1024, n);
    const [ids, site, votes, start, end] = [0, 0, 0, 0, 0].map(() => new Int32Array(size));
    const slotOf = new Map<number, number>();
    const range = new Map<number, { from: number; to: number }>();
    let entries = 0;
    for (let slot = 0; slot < n; slot++) {
      if ((slot & SLICE_SLOTS) === 0) yield;
      const old = kept[slot]!;
      ids[slot] = oldIds[old]!;
      site[slot] = oldSite[old]!;
      votes[slot] = oldVotes[old]!;
      start[slot] = oldStart[old]!;
      end[slot] = oldEnd[old]!;
      entries += end[slot]! - start[slot]!;
      slotOf.set(ids[slot]!, slot);
      const r = range.get(site[slot]!);
      if (r) r.to = slot + 1;
      else range.set(site[slot]!, { from: slot, to: slot + 1 });
    }
    const clean = new Uint32Array(Math.ceil(size / 32));
    for (let slot = 0; slot < n; slot++) clean[slot >> 5]! |= 1 << (slot & 31);

    // In each lexeme's block, entries with the name first, then those with the lead: the name
    // and lead tiers read only their part.
    const counts = new Int32Array(countsRoom); // as much room as now: no copy when swapped in
    const postingStart = new Int32Array(lexemes + 1);
    const [named, led] = [new Int32Array(lexemes), new Int32Array(lexemes)];
    for (let slot = 0; slot < n; slot++) {
      if ((slot & SLICE_SLOTS) === 0) yield;
      for (let i = start[slot]!, stop = end[slot]!; i < stop; i++) {
        const entry = pool[i]!;
        const l = entry >> 3;
        postingStart[l + 1]!++;
        if (entry & 1) named[l]!++;
        else if (entry & 2) led[l]!++;
        for (let v = NAME; v <= ALL; v++) if (entry & (1 << v)) counts[l * 4 + v]!++;
        counts[l * 4 + ANY]!++;
      }
    }
    for (let l = 0; l < lexemes; l++) postingStart[l + 1]! += postingStart[l]!;
    const postings = new Int32Array(postingStart[lexemes]!);
    const fills = [postingStart.slice(0, lexemes), postingStart.slice(0, lexemes), postingStart.slice(0, lexemes)];
    for (let l = 0; l < lexemes; l++) {
      fills[1]![l]! += named[l]!;
      fills[2]![l]! += named[l]! + led[l]!;
      led[l]! += named[l]!;
    }
    for (let slot = 0; slot < n; slot++) {
      if ((slot & SLICE_SLOTS) === 0) yield;
      for (let i = start[slot]!, stop = end[slot]!; i < stop; i++) {
        const entry = pool[i]!;
        const fill = fills[entry & 1 ? 0 : entry & 2 ? 1 : 2]!;
        postings[fill[entry >> 3]!++] = slot * 8 + (entry & 7);
      }
    }
    // Common lexemes also as bitsets over slots, one per vector: a scan reads a word per 32
    // listings instead of an entry per listing.
    const words = Math.ceil(n / 32);
    const dense = new Map<number, Bitsets>();
    for (let l = 0; l < lexemes; l++) {
      if (postingStart[l + 1]! - postingStart[l]! < Math.max(words, 64)) continue;
      yield;
      const sets: Bitsets = [new Uint32Array(words), new Uint32Array(words), new Uint32Array(words)];
      for (let i = postingStart[l]!; i < postingStart[l + 1]!; i++) {
        const entry = postings[i]!;
        const slot = entry >> 3;
        for (let v = NAME; v <= ALL; v++) if (entry & (1 << v)) sets[v]![slot >> 5]! |= 1 << (slot & 31);
      }
      dense.set(l, sets);
    }
    return {
      n,
      size,
      ids,
      site,
      votes,
      start,
      end,
      slotOf,
      range,
      clean,
      pool,
      poolUsed,
      entries,
      postingStart,
      named,
      led,
      postings,
      counts,
      dense,
    };
  }

  /** Makes a built layout the index's. Listings written since its snapshot must be put again. */
  #swap(layout: Layout): void {
    const { n, size } = layout;
    this.#layouts++;
    [this.#ids, this.#site, this.#votes, this.#start, this.#end] = [layout.ids, layout.site, layout.votes, layout.start, layout.end];
    this.#live = new Uint8Array(size).fill(1, 0, n);
    this.#stamp = new Int32Array(size);
    this.#stampNow = 0;
    this.#slots = n;
    this.#slotOf = layout.slotOf;
    this.#range = layout.range;
    this.#writtenOrder = new Map();
    this.#clean = layout.clean;
    this.#changed.clear();
    this.#written = new Map();
    this.#version = new Int32Array(size);
    this.#spare = [];
    // Entries added to the pool after the snapshot belong to the listings put again: their room is reused.
    this.#pool = layout.pool;
    this.#poolUsed = layout.poolUsed;
    this.#poolGarbage = layout.poolUsed - layout.entries;
    this.#postingStart = layout.postingStart;
    this.#postingNamed = layout.named;
    this.#postingLed = layout.led;
    this.#postings = layout.postings;
    // Lexemes new since the snapshot have no postings yet, but room for counts.
    this.#counts = layout.counts.length < this.#counts.length ? grow(layout.counts, this.#counts.length) : layout.counts;
    this.#dense = layout.dense;
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
      this.#sameEntries(slot, entries)
    );
  }

  #unorder(slot: number): void {
    const order = this.#writtenOrder.get(this.#site[slot]!)!;
    const at = this.#position(order, slot);
    if (order[at] === slot) order.splice(at, 1);
  }

  #reorder(slot: number): void {
    const site = this.#site[slot]!;
    let order = this.#writtenOrder.get(site);
    if (!order) this.#writtenOrder.set(site, (order = []));
    order.splice(this.#position(order, slot), 0, slot);
  }

  #position(order: number[], slot: number): number {
    let [lo, hi] = [0, order.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#before(order[mid]!, slot) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #newSlot(id: number): number {
    const slot = this.#slots++;
    if (slot >= this.#ids.length) {
      const size = this.#ids.length * 2;
      this.#ids = grow(this.#ids, size);
      this.#site = grow(this.#site, size);
      this.#votes = grow(this.#votes, size);
      this.#live = grow(this.#live, size);
      this.#start = grow(this.#start, size);
      this.#end = grow(this.#end, size);
      this.#stamp = grow(this.#stamp, size);
      this.#version = grow(this.#version, size);
    }
    this.#ids[slot] = id;
    this.#start[slot] = this.#end[slot] = 0;
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
    let id = this.#lexemeId.get(lexeme);
    if (id !== undefined) return id;
    id = this.#lexemes.length;
    this.#lexemes.push(lexeme);
    this.#lexemeId.set(lexeme, id);
    if (id >= this.#mask.length) {
      this.#mask = grow(this.#mask, this.#mask.length * 2);
      this.#counts = grow(this.#counts, this.#mask.length * 4);
    }
    if (!this.#loading) {
      let [lo, hi] = [0, this.#sorted.length];
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (compare(this.#lexemes[this.#sorted[mid]!]!, lexeme) < 0) lo = mid + 1;
        else hi = mid;
      }
      this.#sorted.splice(lo, 0, id);
    }
    return id;
  }

  #sameEntries(slot: number, entries: number[]): boolean {
    const start = this.#start[slot]!;
    return entries.length === this.#end[slot]! - start && entries.every((e, i) => this.#pool[start + i] === e);
  }

  /** Stores a slot's new entries; its new lexemes count towards the estimates until the next layout. */
  #setEntries(slot: number, entries: number[]): void {
    const had = new Set(this.#pool.subarray(this.#start[slot]!, this.#end[slot]!));
    this.#poolGarbage += this.#end[slot]! - this.#start[slot]!;
    if (this.#poolUsed + entries.length > this.#pool.length) this.#makeRoom(entries.length);
    this.#start[slot] = this.#poolUsed;
    for (const entry of entries) {
      this.#pool[this.#poolUsed++] = entry;
      if (this.#loading || had.has(entry)) continue;
      const l = entry >> 3;
      for (let v = NAME; v <= ALL; v++) if (entry & (1 << v)) this.#counts[l * 4 + v]!++;
      this.#counts[l * 4 + ANY]!++;
    }
    this.#end[slot] = this.#poolUsed;
  }

  /** Room for `length` more: the pool compacted when half of it is garbage, else doubled. */
  #makeRoom(length: number): void {
    const live = this.#poolUsed - this.#poolGarbage;
    const size = Math.max(this.#pool.length * (live * 2 > this.#pool.length ? 2 : 1), live + length + 1024);
    const pool = new Int32Array(size);
    let used = 0;
    for (let slot = 0; slot < this.#slots; slot++) {
      const [start, end] = [this.#start[slot]!, this.#end[slot]!];
      pool.set(this.#pool.subarray(start, end), used);
      this.#start[slot] = used;
      used += end - start;
      this.#end[slot] = used;
    }
    this.#pool = pool;
    this.#poolUsed = used;
    this.#poolGarbage = 0;
  }
}

/** One search over the index; each tier is found once, when the cut first needs it. */
class Evaluation {
  readonly #index: SearchIndex['internals'];
  readonly #siteId: number;
  readonly #query: IndexQuery;
  readonly #featured: ReadonlySet<number>;
  readonly #limits: SearchLimits;
  /** Each candidate's term bits, when the whole search is small enough to evaluate at once. */
  #all: Map<number, number> | null = null;
  /** Live listings of the site written since the layout that can match, with their bits. */
  readonly #changed: Array<[number, number]> = [];
  /** The site's bitset words in the layout. */
  readonly #from: number;
  readonly #to: number;
  readonly #range: { from: number; to: number };
  /** Each term's sets by vector, made when a scan first needs them. */
  readonly #sets = new Map<number, ReturnType<SearchIndex['internals']['termSets']>>();
  /** By vector: the site's words of matching slots, made up to `done` (scans reuse them). */
  readonly #matchedWords: Array<{ words: Uint32Array; done: number }> = [];
  readonly #window: Uint32Array;
  readonly #term: Uint32Array;
  readonly #group: Uint32Array;

  constructor(index: SearchIndex, siteId: number, query: IndexQuery, featured: ReadonlySet<number>, limits: SearchLimits) {
    this.#limits = limits;
    this.#index = index.internals;
    this.#siteId = siteId;
    this.#query = query;
    this.#featured = featured;
    this.#range = this.#index.range.get(siteId) ?? { from: 0, to: 0 };
    this.#from = this.#range.from >> 5;
    this.#to = (this.#range.to + 31) >> 5;
    [this.#window, this.#term, this.#group] = [0, 1, 2].map(() => new Uint32Array(limits.window)) as [
      Uint32Array,
      Uint32Array,
      Uint32Array,
    ];
    const written = this.#index.writtenBits(query, siteId);
    if (written) for (const pair of written) this.#changed.push(pair);
    else {
      const { live, site, bits } = this.#index;
      for (const slot of this.#index.changed) if (live[slot] === 1 && site[slot] === siteId) this.#changed.push([slot, bits(slot)]);
    }
  }

  /** Gives the borrowed bitsets back. */
  finish(): void {
    const { giveBack } = this.#index;
    for (const sets of this.#sets.values()) if (sets.rare) giveBack(sets.rare, this.#to - this.#from);
    for (const matched of this.#matchedWords) if (matched) giveBack(matched.words, matched.done - this.#from);
  }

  run(offset: number, limit: number, countLimit: number): IndexMatches {
    if (this.#estimate(ANY) <= this.#limits.candidates) {
      this.#all = new Map(this.#changed);
      for (const slot of this.#candidates(ANY)) this.#all.set(slot, this.#index.bits(slot));
    }
    const featured = this.#featuredMatches();
    const total = this.#count(countLimit);
    // As search.ts's `matching`: the name tier to offset + limit, later tiers only while short.
    const depth = offset + limit - featured.length;
    const capped = total >= countLimit;
    const rows = limit > 0 ? this.#tier(NAME, offset + limit) : [];
    for (const tier of [LEAD, ALL]) {
      if (limit === 0 || rows.length >= (capped ? depth : Math.min(depth, total - featured.length))) continue;
      rows.push(...this.#tier(tier, depth - rows.length));
    }
    const ids = this.#index.ids;
    return {
      total,
      featured: featured.map((s) => ids[s]!),
      rows: [...featured, ...rows].slice(offset, offset + limit).map((s) => ids[s]!),
    };
  }

  /** Whether the name (0), lead (1) or whole vector (2) matches, given a slot's term bits. */
  #matches(bits: number, vector: number): boolean {
    const b = (bits >> (vector * 8)) & 0xff;
    for (const g of this.#query.groups) if ((b & g.all) === g.all && (b & g.none) === 0) return true;
    return false;
  }

  /** The tier of a match as the SQL's CASE puts it (name, lead, else whole), -1 when no match. */
  #tierOf(bits: number): number {
    if (!this.#matches(bits, ALL)) return -1;
    return this.#matches(bits, NAME) ? NAME : this.#matches(bits, LEAD) ? LEAD : ALL;
  }

  /** In tier t as the SQL's tier conditions say: its vector matches, the one before does not. */
  #inTier(bits: number, tier: number): boolean {
    return this.#matches(bits, tier) && (tier === NAME || !this.#matches(bits, tier - 1));
  }

  #featuredMatches(): number[] {
    const { slotOf, live, site } = this.#index;
    const found: Array<[number, number]> = [];
    for (const id of this.#featured) {
      const slot = slotOf.get(id);
      if (slot === undefined || live[slot] !== 1 || site[slot] !== this.#siteId) continue;
      const tier = this.#tierOf(this.#all?.get(slot) ?? this.#index.bits(slot));
      if (tier >= 0) found.push([tier, slot]);
    }
    return found.sort(([ta, a], [tb, b]) => ta - tb || this.#index.before(a, b)).map(([, slot]) => slot);
  }

  #count(countLimit: number): number {
    let n = 0;
    if (this.#all) {
      for (const bits of this.#all.values()) if (this.#matches(bits, ALL) && ++n >= countLimit) break;
      return n;
    }
    for (const [, bits] of this.#changed) if (this.#matches(bits, ALL) && ++n >= countLimit) return n;
    this.#scan(
      ALL,
      (words) => {
        for (const word of words) n += popcount(word);
        return n >= countLimit;
      },
      true,
    );
    return Math.min(n, countLimit);
  }

  /** The tier's best `need` slots, the featured left out, most voted first. */
  #tier(tier: number, need: number): number[] {
    const { ids, bits } = this.#index;
    const wanted = (slot: number, b: number) => this.#inTier(b, tier) && !this.#featured.has(ids[slot]!);
    const found: number[] = [];
    if (this.#all) {
      for (const [slot, b] of this.#all) if (wanted(slot, b)) found.push(slot);
      return topK(found, need, this.#index.before);
    }
    for (const [slot, b] of this.#changed) if (wanted(slot, b)) found.push(slot);
    if (this.#estimate(tier) <= this.#limits.candidates) {
      for (const slot of this.#candidates(tier)) if (wanted(slot, bits(slot))) found.push(slot);
    } else {
      // Laid-out slots come in vote order: the first `need` of them are the best.
      let laidOut = 0;
      this.#scan(tier, (words, first) => {
        for (let w = 0; w < words.length; w++) {
          for (let b = words[w]!; b !== 0; b &= b - 1) {
            const slot = (first + w) * 32 + (31 - Math.clz32(b & -b));
            if (this.#featured.has(ids[slot]!)) continue;
            found.push(slot);
            if (++laidOut >= need) return true;
          }
        }
        return false;
      });
    }
    return topK(found, need, this.#index.before);
  }

  /**
   * Scans the site's laid-out slots in vote order, a window of bitset words at a time: the
   * words of the slots in tier t (vector t matches, vector t - 1 does not; with `count`, the
   * whole vector alone), handed to `visit` until it says it has enough.
   */
  #scan(tier: number, visit: (words: Uint32Array, firstWord: number) => boolean, count = false): void {
    const size = this.#limits.window;
    const clean = this.#index.clean;
    const excluding = tier > NAME && !count ? tier - 1 : -1;
    for (let a = this.#from; a < this.#to; a += size) {
      const b = Math.min(a + size, this.#to);
      const matched = this.#matched(tier, b);
      const before = excluding >= 0 ? this.#matched(excluding, b) : null;
      const [n, i] = [b - a, a - this.#from];
      const words = this.#window.subarray(0, n);
      if (before) for (let w = 0; w < n; w++) words[w] = matched[i + w]! & ~before[i + w]! & clean[a + w]!;
      else for (let w = 0; w < n; w++) words[w] = matched[i + w]! & clean[a + w]!;
      // Only the site's first and last words hold slots of other sites.
      words[0]! &= this.#siteWord(a);
      words[n - 1]! &= this.#siteWord(b - 1);
      if (visit(words, a)) return;
    }
  }

  /** The site's words (from its first) of the slots whose vector matches, made at least up to word b. */
  #matched(vector: number, b: number): Uint32Array {
    let matched = this.#matchedWords[vector];
    if (!matched) this.#matchedWords[vector] = matched = { words: this.#index.borrow(), done: this.#from };
    for (let a = matched.done; a < b; a += this.#limits.window) {
      const end = Math.min(a + this.#limits.window, this.#to);
      this.#matchWords(vector, a, matched.words.subarray(a - this.#from, end - this.#from));
      matched.done = end;
    }
    return matched.words;
  }

  /** Words [a, a + out.length) of the slots whose vector matches: groups OR-ed, each its terms' words AND-ed. */
  #matchWords(vector: number, a: number, out: Uint32Array): void {
    const n = out.length;
    const group = this.#group;
    groups: for (const g of this.#query.groups) {
      let first = true;
      for (let j = 0; j < this.#query.terms.length; j++) {
        const bit = 1 << j;
        if (((g.all | g.none) & bit) === 0) continue;
        const [t, at] = this.#termWords(j, vector, a, n);
        if (g.all & bit) {
          if (t === null) continue groups;
          if (first) for (let w = 0; w < n; w++) group[w] = t[at + w]!;
          else for (let w = 0; w < n; w++) group[w]! &= t[at + w]!;
        } else if (t !== null) {
          if (first) for (let w = 0; w < n; w++) group[w] = ~t[at + w]!;
          else for (let w = 0; w < n; w++) group[w]! &= ~t[at + w]!;
        } else if (first) group.fill(0xffffffff, 0, n);
        first = false;
      }
      if (first) group.fill(0xffffffff, 0, n);
      for (let w = 0; w < n; w++) out[w]! |= group[w]!;
    }
  }

  /**
   * Words [a, a + n) of the slots holding term j in a vector, as an array and the index of word
   * a in it: a term of one set is read in place, others are OR-ed into #term; null when no
   * listing holds the term in the vector.
   */
  #termWords(j: number, vector: number, a: number, n: number): [Uint32Array, number] | [null, 0] {
    const key = j * 4 + vector;
    let sets = this.#sets.get(key);
    if (!sets) this.#sets.set(key, (sets = this.#index.termSets(this.#query.terms[j]!, vector, this.#from, this.#to, this.#index.borrow)));
    const { rare, common } = sets;
    if (!rare) {
      if (common.length === 0) return [null, 0];
      if (common.length === 1) return [common[0]!, a];
    } else if (common.length === 0) return [rare, a - this.#from];
    const term = this.#term;
    if (rare) term.set(rare.subarray(a - this.#from, a - this.#from + n));
    else term.fill(0, 0, n);
    for (const set of common) for (let w = 0; w < n; w++) term[w]! |= set[a + w]!;
    return [term, 0];
  }

  /** The bits of word w that are slots of the site. */
  #siteWord(w: number): number {
    const { from, to } = this.#range;
    let word = 0xffffffff;
    if (w === from >> 5) word &= ~0 << (from & 31);
    if (w === (to - 1) >> 5 && (to & 31) !== 0) word &= ~(~0 << (to & 31));
    return word;
  }

  /** Listings a vector (ANY: any) can match from, by the rarest word of each group (an upper bound). */
  #estimate(vector: number): number {
    let n = 0;
    for (const g of this.#query.groups) n += Math.min(...this.#positive(g).map((j) => this.#index.estimate(this.#query.terms[j]!, vector)));
    return n;
  }

  /** Clean slots of the site holding every word of some group's rarest word in a vector. */
  #candidates(vector: number): number[] {
    const slots: number[] = [];
    for (const g of this.#query.groups) {
      let rarest = -1;
      let least = Infinity;
      for (const j of this.#positive(g)) {
        const n = this.#index.estimate(this.#query.terms[j]!, vector);
        if (n < least) [rarest, least] = [j, n];
      }
      this.#index.candidates(this.#query.terms[rarest]!, vector, this.#siteId, slots);
    }
    // Groups may share listings.
    return this.#query.groups.length > 1 ? [...new Set(slots)] : slots;
  }

  #positive(group: { all: number }): number[] {
    return this.#query.terms.map((_, j) => j).filter((j) => group.all & (1 << j));
  }
}

type Bitsets = [Uint32Array, Uint32Array, Uint32Array];

/** A layout built by SearchIndex#build: slots by site and votes, postings, bitsets and counts. */
interface Layout {
  n: number;
  size: number;
  ids: Int32Array<ArrayBuffer>;
  site: Int32Array<ArrayBuffer>;
  votes: Int32Array<ArrayBuffer>;
  start: Int32Array<ArrayBuffer>;
  end: Int32Array<ArrayBuffer>;
  slotOf: Map<number, number>;
  range: Map<number, { from: number; to: number }>;
  clean: Uint32Array<ArrayBuffer>;
  pool: Int32Array<ArrayBuffer>;
  poolUsed: number;
  /** Pool entries of the laid-out slots. */
  entries: number;
  postingStart: Int32Array<ArrayBuffer>;
  named: Int32Array<ArrayBuffer>;
  led: Int32Array<ArrayBuffer>;
  postings: Int32Array<ArrayBuffer>;
  counts: Int32Array<ArrayBuffer>;
  dense: Map<number, Bitsets>;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** The first `k` of `slots` by `before`, in that order. */
function topK(slots: number[], k: number, before: (a: number, b: number) => number): number[] {
  if (slots.length <= k * 4) return slots.sort(before).slice(0, k);
  const best: number[] = [];
  for (const slot of slots) {
    if (best.length === k && before(slot, best[k - 1]!) >= 0) continue;
    let [lo, hi] = [0, best.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (before(best[mid]!, slot) < 0) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, slot);
    if (best.length > k) best.pop();
  }
  return best;
}

/** Strings in UTF-16 order: any order in which each prefix's strings are contiguous will do. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function grow<T extends Int32Array | Uint8Array>(array: T, size: number): T {
  const bigger = new (array.constructor as new (n: number) => T)(size);
  bigger.set(array);
  return bigger;
}
