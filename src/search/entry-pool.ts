/**
 * Each slot's entries of the in-memory index (lexeme id * 8 + the vectors holding it, in lexeme
 * order) in one pool of integers: a million listings' lexemes in one typed array rather than a
 * million small arrays. A slot written again gets room at the end and its old room becomes
 * garbage, reclaimed when the pool must grow and half of it is garbage. A layout being built
 * reads the pool as it was: it only grows, or is replaced by a compacted copy.
 */
export class EntryPool {
  pool = new Int32Array(1 << 16);
  used = 0;
  garbage = 0;
  /** Per slot: its entries are pool[start[slot] .. end[slot]]. */
  start = new Int32Array(1024);
  end = new Int32Array(1024);

  /** The slot's entries, a view valid until the next write. */
  of(slot: number): Int32Array {
    return this.pool.subarray(this.start[slot]!, this.end[slot]!);
  }

  same(slot: number, entries: number[]): boolean {
    const start = this.start[slot]!;
    return entries.length === this.end[slot]! - start && entries.every((e, i) => this.pool[start + i] === e);
  }

  /** Stores a slot's new entries; `slots` is how many slots there are. */
  set(slot: number, entries: number[], slots: number): void {
    this.garbage += this.end[slot]! - this.start[slot]!;
    if (this.used + entries.length > this.pool.length) this.#makeRoom(entries.length, slots);
    this.start[slot] = this.used;
    for (const entry of entries) this.pool[this.used++] = entry;
    this.end[slot] = this.used;
  }

  /** Takes a new layout's slots and pool: past its laid-out `entries`, the pool holds listings written since, to be put again. */
  adopt(layout: {
    start: Int32Array<ArrayBuffer>;
    end: Int32Array<ArrayBuffer>;
    pool: Int32Array<ArrayBuffer>;
    poolUsed: number;
    entries: number;
  }): void {
    [this.start, this.end, this.pool] = [layout.start, layout.end, layout.pool];
    this.used = layout.poolUsed;
    this.garbage = layout.poolUsed - layout.entries;
  }

  /** Room for `size` slots; new slots hold nothing. */
  grow(size: number): void {
    for (const key of ['start', 'end'] as const) {
      const bigger = new Int32Array(size);
      bigger.set(this[key]);
      this[key] = bigger;
    }
  }

  /** Room for `length` more entries: the pool compacted when half of it is garbage, else doubled. */
  #makeRoom(length: number, slots: number): void {
    const live = this.used - this.garbage;
    const size = Math.max(this.pool.length * (live * 2 > this.pool.length ? 2 : 1), live + length + 1024);
    const pool = new Int32Array(size);
    let used = 0;
    for (let slot = 0; slot < slots; slot++) {
      const [start, end] = [this.start[slot]!, this.end[slot]!];
      pool.set(this.pool.subarray(start, end), used);
      this.start[slot] = used;
      used += end - start;
      this.end[slot] = used;
    }
    this.pool = pool;
    this.used = used;
    this.garbage = 0;
  }
}
