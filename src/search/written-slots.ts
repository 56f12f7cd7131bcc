import type { IndexQuery } from './index-types.ts';

/**
 * The live slots of the in-memory index written since its layout (new listings, other words or
 * votes): out of the layout's postings, bitsets and vote order, they are kept here until the
 * next layout, each site's in vote order and with postings of their own by lexeme, so that a
 * search evaluates only the written listings holding its words, not all of them (at 1M
 * listings, evaluating 4,096 cost 0.5 ms a search).
 */
export class WrittenSlots {
  /** The written live slots. */
  readonly slots = new Set<number>();
  /** By lexeme: (slot, its version, vector bits) triples; those of an older version of a slot are stale. */
  #postings = new Map<number, number[]>();
  /** Per slot: how many times its postings were added since the layout. */
  #version: Int32Array;
  /** Each site's written slots, most voted first (ties: lower id). */
  #order = new Map<number, number[]>();
  /** The index's vote order of two slots, as their votes are now. */
  readonly #before: (a: number, b: number) => number;

  constructor(size: number, before: (a: number, b: number) => number) {
    this.#version = new Int32Array(size);
    this.#before = before;
  }

  /** Forgets every written slot: a new layout of `size` slots holds them. */
  reset(size: number): void {
    this.slots.clear();
    this.#postings = new Map();
    this.#version = new Int32Array(size);
    this.#order = new Map();
  }

  /** Room for `size` slots. */
  grow(size: number): void {
    const version = new Int32Array(size);
    version.set(this.#version);
    this.#version = version;
  }

  has(slot: number): boolean {
    return this.slots.has(slot);
  }

  /** A slot written on a site; `entries` (lexeme id * 8 + vector bits) when its lexemes are new, else its postings still hold. */
  add(slot: number, site: number, entries: Int32Array | null): void {
    if (entries) {
      const version = ++this.#version[slot]!;
      for (const entry of entries) {
        let list = this.#postings.get(entry >> 3);
        if (!list) this.#postings.set(entry >> 3, (list = []));
        list.push(slot, version, entry & 7);
      }
    }
    this.slots.add(slot);
    let order = this.#order.get(site);
    if (!order) this.#order.set(site, (order = []));
    order.splice(this.#position(order, slot), 0, slot);
  }

  /** Takes a slot of a site out, while its votes are still those it was ordered by. */
  delete(slot: number, site: number): void {
    if (!this.slots.delete(slot)) return;
    const order = this.#order.get(site)!;
    const at = this.#position(order, slot);
    if (order[at] === slot) order.splice(at, 1);
  }

  /** A site's written slots, most voted first. */
  order(siteId: number): readonly number[] {
    return this.#order.get(siteId) ?? NONE;
  }

  /** Sites with written slots. */
  sites(): Iterable<number> {
    return this.#order.keys();
  }

  /**
   * The written live slots of a site holding a word of the search, with their term bits (as the
   * index's): null when a group has no positive word (then a slot with none of its words matches).
   */
  bits(query: IndexQuery, siteId: number, live: Uint8Array, site: Int32Array): Map<number, number> | null {
    if (query.groups.some((g) => g.all === 0)) return null;
    const found = new Map<number, number>();
    const version = this.#version;
    for (const [j, term] of query.terms.entries()) {
      const bit = 1 << j;
      for (const l of term) {
        const list = this.#postings.get(l);
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

  #position(order: number[], slot: number): number {
    let [lo, hi] = [0, order.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#before(order[mid]!, slot) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

const NONE: readonly number[] = [];
