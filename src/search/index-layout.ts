import { ALL, ANY, NAME, type Bitsets } from './index-types.ts';
import type { LayoutPostings } from './layout-postings.ts';

/** A layout being built yields every this many + 1 slots (a power of two, less one). */
const SLICE_SLOTS = 0x1fff;

/** What a layout is built from, taken from the index at once (SearchIndex#snapshot). */
export interface LayoutSnapshot {
  kept: ArrayLike<number>;
  /** The index's slots, copied. */
  ids: Int32Array;
  site: Int32Array;
  votes: Int32Array;
  start: Int32Array;
  end: Int32Array;
  pool: Int32Array<ArrayBuffer>;
  poolUsed: number;
  lexemes: number;
  /** Room of the index's counts: the layout's have as much, so none is copied when it is swapped in. */
  countsRoom: number;
}

/**
 * A new layout of the snapshot's `kept` (live slots by site, then most votes first): its slots,
 * postings, bitsets and exact counts. Everything it reads is a copy or left untouched by later
 * writes (the pool only grows, or is replaced by a compacted copy), so it may run in slices,
 * a yield between them, while searches and writes go on.
 */
export function* layOut(snapshot: LayoutSnapshot): Generator<void, Layout> {
  const { kept, pool, poolUsed, lexemes, countsRoom } = snapshot;
  const [oldIds, oldSite, oldVotes, oldStart, oldEnd] = [snapshot.ids, snapshot.site, snapshot.votes, snapshot.start, snapshot.end];
  const n = kept.length;
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
    postings: { start: postingStart, named, led, entries: postings, dense },
    counts,
  };
}

/** A layout built by layOut: slots by site and votes, postings, bitsets and counts. */
export interface Layout {
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
  postings: LayoutPostings;
  counts: Int32Array<ArrayBuffer>;
}
