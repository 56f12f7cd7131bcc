/**
 * The in-memory search index: each live listing's lexemes as PostgreSQL computed them (from
 * `search_name`, `search_lead` and `search`), postings from lexemes to listings, and each site's
 * live listings in vote order. It answers the same questions as the SQL of search.ts (the
 * capped count, the featured matches, each tier's best listings), with no database.
 *
 * Layout, for a million listings in a few hundred MB: listings live in slots (typed arrays by
 * slot), their lexemes in one pool, an entry per lexeme with the vectors holding it (bits:
 * name 1, lead 2, whole 4). The vectors are kept apart rather than assumed nested: PostgreSQL
 * 18.4 stored some `search_lead` vectors without lexemes of `search_name` (see the differential
 * test), and its statements use what is stored. Postings are one array built at load, a slot
 * and its vector bits in each entry, with later additions kept aside; entries are never
 * removed, so each candidate is checked against its own lexemes.
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
   * A tier whose candidates (postings of each group's rarest word) are at most this many is
   * evaluated whole (about 0.1 µs each); a larger one is walked in vote order, where matches
   * are dense enough to be met early (20,000 candidates of a common word took 3 ms to
   * evaluate, its walk a few hundred µs).
   */
  candidates: number;
  /**
   * How far a tier is walked in vote order before its words' postings are intersected instead
   * (a few hundred µs): three common words that never meet in a name walked every listing.
   */
  walk: number;
}

const LIMITS: SearchLimits = { candidates: 2_000, walk: 3_000 };

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
  #stamp = new Int32Array(1024);
  /** Terms of an intersection a slot has shown so far (valid where #stamp is the current stamp). */
  #hits = new Uint8Array(1024);
  /** The term bits an intersection gathered for a slot from the postings. */
  #gathered = new Int32Array(1024);
  /** Slots whose lexemes changed since load: postings may hold stale entries of theirs. */
  #rewritten = new Uint8Array(1024);
  #stampNow = 0;
  readonly #slotOf = new Map<number, number>();

  #pool = new Int32Array(1 << 16);
  #poolUsed = 0;
  #poolGarbage = 0;

  readonly #lexemes: string[] = [];
  readonly #lexemeId = new Map<string, number>();
  /** Lexeme ids in string order, for prefixes. */
  #sorted: number[] = [];
  /** Per lexeme: listings holding it in the name, lead, whole and any vector (an upper bound: entries are never removed). */
  #counts = new Int32Array(4 * 1024);
  /** Per term bit: the terms a lexeme satisfies, set for one search at a time. */
  #mask = new Uint8Array(1024);

  /** Postings built at load: lexeme l's entries are #postings[#postingStart[l] .. #postingStart[l + 1]]. */
  #postingStart = new Int32Array(1);
  /** How many of lexeme l's entries (the first ones) hold it in the name; in the name or lead. */
  #postingNamed = new Int32Array(0);
  #postingLed = new Int32Array(0);
  #postings = new Int32Array(0);
  /** Bitsets (name, lead, whole) of common lexemes over the slots of the load; later entries are in #extra. */
  readonly #dense = new Map<number, Bitsets>();
  /** Postings added since. */
  readonly #extra = new Map<number, number[]>();
  /** Live slots of each site, most voted first (ties: lower id). */
  readonly #order = new Map<number, number[]>();
  #loading = true;

  get size(): number {
    return this.#slotOf.size;
  }

  /** Adds or replaces a listing; a listing that is not live stays out of every search. */
  put(listing: IndexedListing): void {
    let slot = this.#slotOf.get(listing.id);
    const wasLive = slot !== undefined && this.#live[slot] === 1;
    if (wasLive) this.#unorder(slot!);
    if (slot === undefined) {
      slot = this.#newSlot(listing.id);
    }
    const entries = this.#entries(listing);
    if (!this.#sameEntries(slot, entries)) this.#setEntries(slot, entries);
    this.#site[slot] = listing.siteId;
    this.#votes[slot] = listing.votes;
    this.#live[slot] = listing.live ? 1 : 0;
    if (listing.live) this.#reorder(slot);
  }

  /** Takes a listing out of search (deleted, or gone from the database). */
  remove(id: number): void {
    const slot = this.#slotOf.get(id);
    if (slot === undefined || this.#live[slot] === 0) return;
    this.#unorder(slot);
    this.#live[slot] = 0;
  }

  /** Ends the bulk load: builds postings and vote orders once instead of per listing. */
  finishLoad(): void {
    const lexemes = this.#lexemes.length;
    const start = new Int32Array(lexemes + 1);
    for (let slot = 0; slot < this.#slots; slot++) {
      for (let i = this.#start[slot]!; i < this.#end[slot]!; i++) start[(this.#pool[i]! >> 3) + 1]!++;
    }
    for (let l = 0; l < lexemes; l++) start[l + 1]! += start[l]!;
    // In each lexeme's block, entries with the name first, then those with the lead: the name
    // and lead tiers read only their part.
    const [named, led] = [new Int32Array(lexemes), new Int32Array(lexemes)];
    for (let slot = 0; slot < this.#slots; slot++) {
      for (let i = this.#start[slot]!; i < this.#end[slot]!; i++) {
        const entry = this.#pool[i]!;
        if (entry & 1) named[entry >> 3]!++;
        else if (entry & 2) led[entry >> 3]!++;
      }
    }
    const postings = new Int32Array(start[lexemes]!);
    const fills = [start.slice(0, lexemes), start.slice(0, lexemes), start.slice(0, lexemes)];
    for (let l = 0; l < lexemes; l++) {
      fills[1]![l]! += named[l]!;
      fills[2]![l]! += named[l]! + led[l]!;
      led[l]! += named[l]!;
    }
    for (let slot = 0; slot < this.#slots; slot++) {
      for (let i = this.#start[slot]!; i < this.#end[slot]!; i++) {
        const entry = this.#pool[i]!;
        const fill = fills[entry & 1 ? 0 : entry & 2 ? 1 : 2]!;
        postings[fill[entry >> 3]!++] = slot * 8 + (entry & 7);
      }
    }
    this.#postingStart = start;
    this.#postingNamed = named;
    this.#postingLed = led;
    this.#postings = postings;
    // Common lexemes also as bitsets over slots, one per vector: intersecting common words reads
    // a word per 32 listings instead of an entry per listing.
    const words = Math.ceil(this.#slots / 32);
    for (let l = 0; l < lexemes; l++) {
      if (start[l + 1]! - start[l]! < words) continue;
      const sets: Bitsets = [new Uint32Array(words), new Uint32Array(words), new Uint32Array(words)];
      for (let i = start[l]!; i < start[l + 1]!; i++) {
        const entry = postings[i]!;
        const slot = entry >> 3;
        for (let v = NAME; v <= ALL; v++) if (entry & (1 << v)) sets[v]![slot >> 5]! |= 1 << (slot & 31);
      }
      this.#dense.set(l, sets);
    }
    this.#sorted = this.#lexemes.map((_, i) => i).sort((a, b) => compare(this.#lexemes[a]!, this.#lexemes[b]!));
    for (const slots of this.#order.values()) slots.sort((a, b) => this.#before(a, b));
    this.#loading = false;
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
    try {
      return new Evaluation(this, siteId, query, featured, cut.limits ?? LIMITS).run(cut.offset, cut.limit, cut.countLimit);
    } finally {
      this.#setMask(query, false);
    }
  }

  /** Live listings of a site, most voted first: the featured first, then the others. */
  byVotes(siteId: number, featured: ReadonlySet<number>, offset: number, limit: number, countLimit: number): IndexMatches {
    const order = this.#order.get(siteId) ?? [];
    const first = [...featured]
      .map((id) => this.#slotOf.get(id))
      .filter((s) => s !== undefined && this.#live[s] === 1 && this.#site[s] === siteId)
      .sort((a, b) => this.#before(a!, b!))
      .map((s) => this.#ids[s!]!);
    const rows = first.slice(offset, offset + limit);
    let skip = Math.max(0, offset - first.length);
    for (let i = 0; i < order.length && rows.length < limit; i++) {
      const id = this.#ids[order[i]!]!;
      if (featured.has(id)) continue;
      if (skip > 0) skip--;
      else rows.push(id);
    }
    return { total: Math.min(order.length, countLimit), featured: first, rows };
  }

  // Evaluation reads the slots directly: these are its views.
  /** @internal */ get internals() {
    return {
      ids: this.#ids,
      site: this.#site,
      votes: this.#votes,
      live: this.#live,
      order: this.#order,
      slotOf: this.#slotOf,
      bits: (slot: number) => this.#bits(slot),
      estimate: (term: number[], vector: number) => this.#estimate(term, vector),
      candidates: (term: number[], vector: number, siteId: number, into: number[]) => this.#candidates(term, vector, siteId, into),
      /** True when the slots' bits were gathered (see `gathered`), false when done in bitsets. */
      intersect: (terms: number[][], termBits: number[], vector: number, siteId: number, into: number[]) => {
        if (!this.#denser(terms, vector)) return (this.#intersect(terms, termBits, vector, siteId, into), true);
        this.#intersectBitsets(terms, vector, siteId, into);
        return false;
      },
      /** The bits an intersection gathered, exact unless the slot was rewritten (then read from its lexemes). */
      gathered: (slot: number) => (this.#rewritten[slot] === 1 ? this.#bits(slot) : this.#gathered[slot]!),
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

  /** Live slots of the site holding one of the term's lexemes in a vector (ANY: in any), each once. */
  #candidates(term: number[], vector: number, siteId: number, into: number[]): void {
    const stamp = ++this.#stampNow;
    const bits = vector === ANY ? 7 : 1 << vector;
    const take = (entry: number) => {
      const slot = entry >> 3;
      if ((entry & bits) === 0 || this.#stamp[slot] === stamp) return;
      this.#stamp[slot] = stamp;
      if (this.#live[slot] === 1 && this.#site[slot] === siteId) into.push(slot);
    };
    for (const l of term) {
      const [from, end] = this.#block(l, vector);
      for (let i = from; i < end; i++) take(this.#postings[i]!);
      const extra = this.#extra.get(l);
      if (extra) for (const entry of extra) take(entry);
    }
  }

  /**
   * Live slots of the site holding a lexeme of every term in a vector (ANY: each in any): each
   * term's postings counted in turn, a slot going on only if every term before had it. Meanwhile
   * each slot's term bits are gathered from the postings (`#gathered`): for a search of one
   * group without exclusions they are its bits, without reading its lexemes.
   */
  #intersect(terms: number[][], termBits: number[], vector: number, siteId: number, into: number[]): void {
    const stamp = ++this.#stampNow;
    const bits = vector === ANY ? 7 : 1 << vector;
    const [stamps, hits, gathered, live, site] = [this.#stamp, this.#hits, this.#gathered, this.#live, this.#site];
    const postings = this.#postings;
    const order = terms.map((_, k) => k).sort((a, b) => this.#estimate(terms[a]!, vector) - this.#estimate(terms[b]!, vector));
    for (const [k, t] of order.entries()) {
      const last = k === order.length - 1;
      const bit = termBits[t]!;
      const scan = (entries: Int32Array | number[], from: number, to: number) => {
        for (let i = from; i < to; i++) {
          const entry = entries[i]!;
          if ((entry & bits) === 0) continue;
          const slot = entry >> 3;
          if (stamps[slot] !== stamp) {
            if (k > 0 || live[slot] !== 1 || site[slot] !== siteId) continue;
            stamps[slot] = stamp;
            hits[slot] = 1;
            gathered[slot] = 0;
            if (last) into.push(slot);
          } else if (hits[slot] === k) {
            hits[slot] = k + 1;
            if (last) into.push(slot);
          } else if (hits[slot] !== k + 1) continue;
          gathered[slot]! |= (entry & 1 ? bit : 0) | (entry & 2 ? bit << 8 : 0) | (entry & 4 ? bit << 16 : 0);
        }
      };
      for (const l of terms[t]!) {
        const [from, to] = this.#block(l, vector);
        scan(postings, from, to);
        const extra = this.#extra.get(l);
        if (extra) scan(extra, 0, extra.length);
      }
    }
  }

  /** Whether intersecting these terms in bitsets reads less than their postings would. */
  #denser(terms: number[][], vector: number): boolean {
    const words = Math.ceil(this.#slots / 32);
    let entries = 0;
    for (const term of terms) entries += this.#estimate(term, vector);
    return entries > 4 * words * terms.length && terms.every((term) => term.some((l) => this.#dense.has(l)));
  }

  /** As #intersect, in bitsets: each term's lexemes OR-ed (bitsets, or their postings set bit by bit), then AND-ed. */
  #intersectBitsets(terms: number[][], vector: number, siteId: number, into: number[]): void {
    const words = Math.ceil(this.#slots / 32);
    const bit = 1 << vector;
    let all: Uint32Array | null = null;
    for (const term of terms) {
      const set = new Uint32Array(words);
      const add = (entries: Int32Array | number[], from: number, to: number) => {
        for (let i = from; i < to; i++) {
          const entry = entries[i]!;
          if (entry & bit) set[entry >> 8]! |= 1 << ((entry >> 3) & 31);
        }
      };
      for (const l of term) {
        const dense = this.#dense.get(l);
        if (dense) {
          const own = dense[vector]!;
          for (let w = 0; w < own.length; w++) set[w]! |= own[w]!;
        } else add(this.#postings, ...this.#block(l, vector));
        const extra = this.#extra.get(l);
        if (extra) add(extra, 0, extra.length);
      }
      if (all) for (let w = 0; w < words; w++) all[w]! &= set[w]!;
      else all = set;
    }
    for (let w = 0; w < words; w++) {
      for (let bits = all![w]!; bits !== 0; bits &= bits - 1) {
        const slot = w * 32 + (31 - Math.clz32(bits & -bits));
        if (this.#live[slot] === 1 && this.#site[slot] === siteId) into.push(slot);
      }
    }
  }

  /** The part of lexeme l's built postings that can hold it in a vector. */
  #block(l: number, vector: number): [number, number] {
    const from = this.#postingStart[l] ?? 0;
    if (vector === NAME) return [from, from + (this.#postingNamed[l] ?? 0)];
    if (vector === LEAD) return [from, from + (this.#postingLed[l] ?? 0)];
    return [from, this.#postingStart[l + 1] ?? 0];
  }

  /** Most votes first, then the lower id (as `ORDER BY votes DESC, id`). */
  #before(a: number, b: number): number {
    return this.#votes[b]! - this.#votes[a]! || this.#ids[a]! - this.#ids[b]!;
  }

  #unorder(slot: number): void {
    if (this.#loading) return;
    const order = this.#order.get(this.#site[slot]!)!;
    const at = this.#position(order, slot);
    if (order[at] === slot) order.splice(at, 1);
  }

  #reorder(slot: number): void {
    const site = this.#site[slot]!;
    let order = this.#order.get(site);
    if (!order) this.#order.set(site, (order = []));
    if (this.#loading) order.push(slot);
    else order.splice(this.#position(order, slot), 0, slot);
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
      this.#hits = grow(this.#hits, size);
      this.#gathered = grow(this.#gathered, size);
      this.#rewritten = grow(this.#rewritten, size);
    }
    this.#ids[slot] = id;
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

  #setEntries(slot: number, entries: number[]): void {
    const had = new Set(this.#pool.subarray(this.#start[slot]!, this.#end[slot]!));
    if (had.size > 0) this.#rewritten[slot] = 1;
    this.#poolGarbage += this.#end[slot]! - this.#start[slot]!;
    if (this.#poolUsed + entries.length > this.#pool.length) this.#makeRoom(entries.length);
    this.#start[slot] = this.#poolUsed;
    for (const entry of entries) {
      this.#pool[this.#poolUsed++] = entry;
      if (had.has(entry)) continue;
      const l = entry >> 3;
      for (let v = NAME; v <= ALL; v++) if (entry & (1 << v)) this.#counts[l * 4 + v]!++;
      this.#counts[l * 4 + ANY]!++;
      // At load, postings are built in one pass at the end.
      if (this.#loading) continue;
      let extra = this.#extra.get(l);
      if (!extra) this.#extra.set(l, (extra = []));
      extra.push(slot * 8 + (entry & 7));
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
  /** Each candidate's term bits, when the whole search is small enough to evaluate at once. */
  #all: Map<number, number> | null = null;
  /** The slots walked in vote order so far, with their bits. */
  readonly #walked = { slots: [] as number[], bits: [] as number[] };
  readonly #limits: SearchLimits;

  constructor(index: SearchIndex, siteId: number, query: IndexQuery, featured: ReadonlySet<number>, limits: SearchLimits) {
    this.#limits = limits;
    this.#index = index.internals;
    this.#siteId = siteId;
    this.#query = query;
    this.#featured = featured;
  }

  run(offset: number, limit: number, countLimit: number): IndexMatches {
    if (this.#estimate(ANY) <= this.#limits.candidates) {
      this.#all = new Map();
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
      const tier = this.#tierOf(this.#bitsOf(slot));
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
    const walked = this.#walk((_, bits) => this.#matches(bits, ALL), countLimit);
    if (walked) return walked.length;
    const { slots, bits } = this.#intersection(ALL, true);
    for (const slot of slots) if (this.#matches(bits(slot), ALL) && ++n >= countLimit) break;
    return n;
  }

  /** The tier's best `need` slots, the featured left out, most voted first. */
  #tier(tier: number, need: number): number[] {
    const { ids, bits } = this.#index;
    const wanted = (slot: number, b: number) => this.#inTier(b, tier) && !this.#featured.has(ids[slot]!);
    const found: number[] = [];
    if (this.#all) {
      for (const [slot, b] of this.#all) if (wanted(slot, b)) found.push(slot);
    } else if (this.#estimate(tier) <= this.#limits.candidates) {
      for (const slot of this.#candidates(tier)) if (wanted(slot, bits(slot))) found.push(slot);
    } else {
      const walked = this.#walk(wanted, need);
      if (walked) return walked;
      const sparse = this.#intersection(tier, tier === NAME);
      for (const slot of sparse.slots) if (wanted(slot, sparse.bits(slot))) found.push(slot);
    }
    return topK(found, need, this.#index.before);
  }

  /**
   * The first `need` slots of the site in vote order that `wanted` takes, if they are among the
   * first `walk` of the limits; null when they are not (the matches are sparse). The walked
   * slots' bits are kept for the next walk of the same search.
   */
  #walk(wanted: (slot: number, bits: number) => boolean, need: number): number[] | null {
    const order = this.#index.order.get(this.#siteId) ?? [];
    const [slots, bits] = [this.#walked.slots, this.#walked.bits];
    const found: number[] = [];
    const end = Math.min(order.length, this.#limits.walk);
    for (let i = 0; i < end && found.length < need; i++) {
      if (i === slots.length) {
        slots.push(order[i]!);
        bits.push(this.#index.bits(order[i]!));
      }
      if (wanted(slots[i]!, bits[i]!)) found.push(slots[i]!);
    }
    return found.length >= need || end === order.length ? found : null;
  }

  #bitsOf(slot: number): number {
    return this.#all?.get(slot) ?? this.#index.bits(slot);
  }

  /** Listings a vector (ANY: any) can match from, by the rarest word of each group (an upper bound). */
  #estimate(vector: number): number {
    let n = 0;
    for (const g of this.#query.groups) n += Math.min(...this.#positive(g).map((j) => this.#index.estimate(this.#query.terms[j]!, vector)));
    return n;
  }

  /**
   * Slots holding every word of a group in a vector, of any group, with their bits. When only
   * that vector's byte is asked (`ownByteOnly`: the count, the name tier) and the search is one
   * group without exclusions, the bits gathered from the postings read will do (they hold that
   * byte whole); else they are read from the slots' lexemes.
   */
  #intersection(vector: number, ownByteOnly: boolean): { slots: number[]; bits: (slot: number) => number } {
    const slots: number[] = [];
    const { groups, terms } = this.#query;
    let gathered = ownByteOnly && groups.length === 1 && groups[0]!.none === 0;
    for (const g of groups) {
      const positive = this.#positive(g);
      const exact = this.#index.intersect(
        positive.map((j) => terms[j]!),
        positive.map((j) => 1 << j),
        vector,
        this.#siteId,
        slots,
      );
      gathered &&= exact;
    }
    return { slots: groups.length > 1 ? [...new Set(slots)] : slots, bits: gathered ? this.#index.gathered : this.#index.bits };
  }

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
