import { ALL, ANY, LEAD, NAME, type IndexMatches, type IndexQuery, type IndexViews, type SearchLimits } from './index-types.ts';

/** One search over the index; each tier is found once, when the cut first needs it. */
export class Evaluation {
  readonly #index: IndexViews;
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
  readonly #sets = new Map<number, ReturnType<IndexViews['termSets']>>();
  /** By vector: the site's words of matching slots, made up to `done` (scans reuse them). */
  readonly #matchedWords: Array<{ words: Uint32Array; done: number }> = [];
  readonly #window: Uint32Array;
  readonly #term: Uint32Array;
  readonly #group: Uint32Array;

  constructor(index: IndexViews, siteId: number, query: IndexQuery, featured: ReadonlySet<number>, limits: SearchLimits) {
    this.#limits = limits;
    this.#index = index;
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
    // As postgres-engine.ts's `matching`: the name tier to offset + limit, later tiers only while short.
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

  /**
   * Whether the name (0), lead (1) or whole vector (2) matches, given a slot's term bits: a group
   * has its words in that vector and its excluded words nowhere in the listing (the whole
   * vector), as postgres-engine.ts's vectorMatches.
   */
  #matches(bits: number, vector: number): boolean {
    const b = (bits >> (vector * 8)) & 0xff;
    const whole = (bits >> (ALL * 8)) & 0xff;
    for (const g of this.#query.groups) if ((b & g.all) === g.all && (whole & g.none) === 0) return true;
    return false;
  }

  /** The tier of a match as the SQL's CASE puts it (name, lead, else whole), -1 when no match. */
  #tierOf(bits: number): number {
    if (!this.#matches(bits, ALL)) return -1;
    return this.#matches(bits, NAME) ? NAME : this.#matches(bits, LEAD) ? LEAD : ALL;
  }

  /** In tier t as the SQL's tier conditions say: its vector matches, those of the tiers before do not. */
  #inTier(bits: number, tier: number): boolean {
    return this.#matches(bits, tier) && !(tier > NAME && this.#matches(bits, NAME)) && !(tier > LEAD && this.#matches(bits, LEAD));
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
   * words of the slots in tier t (vector t matches, the vectors of the tiers before do not; with
   * `count`, the whole vector alone), handed to `visit` until it says it has enough.
   */
  #scan(tier: number, visit: (words: Uint32Array, firstWord: number) => boolean, count = false): void {
    const size = this.#limits.window;
    const clean = this.#index.clean;
    // Both, as the SQL's tiers: a vector stored broken may lack the name's words (postgres-engine.ts).
    const excluding = count ? [] : [NAME, LEAD].filter((v) => v < tier);
    for (let a = this.#from; a < this.#to; a += size) {
      const b = Math.min(a + size, this.#to);
      const matched = this.#matched(tier, b);
      const before = excluding.map((v) => this.#matched(v, b));
      const [n, i] = [b - a, a - this.#from];
      const words = this.#window.subarray(0, n);
      for (let w = 0; w < n; w++) words[w] = matched[i + w]! & clean[a + w]!;
      for (const excluded of before) for (let w = 0; w < n; w++) words[w]! &= ~excluded[i + w]!;
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

  /**
   * Words [a, a + out.length) of the slots whose vector matches: groups OR-ed, each its words'
   * words in the vector AND-ed with the complement of its excluded words' in the whole vector.
   */
  #matchWords(vector: number, a: number, out: Uint32Array): void {
    const n = out.length;
    const group = this.#group;
    groups: for (const g of this.#query.groups) {
      let first = true;
      for (let j = 0; j < this.#query.terms.length; j++) {
        const bit = 1 << j;
        if (((g.all | g.none) & bit) === 0) continue;
        const [t, at] = this.#termWords(j, g.all & bit ? vector : ALL, a, n);
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
