import { ANY, LEAD, NAME, type Bitsets } from './index-types.ts';

/**
 * The postings of a layout, fixed once it is built: lexeme l's entries (slot * 8 + vector bits)
 * are entries[start[l] .. start[l + 1]], those holding it in the name first, then those in the
 * lead, then the rest, each part in slot order (so in vote order): the name and lead tiers read
 * only their part. Common lexemes are also bitsets over slots, one per vector: a scan reads a
 * word per 32 listings instead of an entry per listing.
 */
export interface LayoutPostings {
  start: Int32Array<ArrayBuffer>;
  /** How many of lexeme l's entries (the first ones) hold it in the name; in the name or lead. */
  named: Int32Array<ArrayBuffer>;
  led: Int32Array<ArrayBuffer>;
  entries: Int32Array<ArrayBuffer>;
  /** Bitsets (name, lead, whole) of the common lexemes. */
  dense: Map<number, Bitsets>;
}

export const NO_POSTINGS: LayoutPostings = {
  start: new Int32Array(1),
  named: new Int32Array(0),
  led: new Int32Array(0),
  entries: new Int32Array(0),
  dense: new Map(),
};

/** The part of lexeme l's entries that can hold it in a vector. */
export function block(postings: LayoutPostings, l: number, vector: number): [number, number] {
  if (l >= postings.named.length) return [0, 0]; // a lexeme new since the layout
  const from = postings.start[l]!;
  if (vector === NAME) return [from, from + postings.named[l]!];
  if (vector === LEAD) return [from, from + postings.led[l]!];
  return [from, postings.start[l + 1]!];
}

/**
 * The term in a vector over bitset words [from, to) of the layout: its rare lexemes' postings
 * set in one borrowed bitset (indexed from `from`), its common lexemes' own bitsets (indexed
 * from 0; those with no listing in the vector by `counts` left out), to be OR-ed word by word.
 */
export function termSets(
  postings: LayoutPostings,
  counts: Int32Array,
  term: number[],
  vector: number,
  from: number,
  to: number,
  borrow: () => Uint32Array,
): { rare: Uint32Array | null; common: Uint32Array[] } {
  let rare: Uint32Array | null = null;
  const common: Uint32Array[] = [];
  const bit = 1 << vector;
  const entries = postings.entries;
  for (const l of term) {
    const dense = postings.dense.get(l);
    if (dense) {
      // An english stem is in no name (simple), an unstemmed word in few headlines.
      if (counts[l * 4 + vector]! > 0) common.push(dense[vector]!);
      continue;
    }
    const [start, end] = block(postings, l, vector);
    if (start === end) continue;
    rare ??= borrow();
    for (let i = start; i < end; i++) {
      const entry = entries[i]!;
      const w = (entry >> 8) - from;
      if ((entry & bit) !== 0 && w >= 0 && w < to - from) rare[w]! |= 1 << ((entry >> 3) & 31);
    }
  }
  return { rare, common };
}

/**
 * Clean live slots of the site holding one of the term's lexemes in a vector (ANY: in any), each
 * once: a slot is taken where `stamps` is not yet `stamp`, and stamped.
 */
export function candidates(
  postings: LayoutPostings,
  term: number[],
  vector: number,
  siteId: number,
  slots: { stamps: Int32Array; stamp: number; clean: Uint32Array; site: Int32Array },
  into: number[],
): void {
  const bits = vector === ANY ? 7 : 1 << vector;
  const { stamps, stamp, clean, site } = slots;
  const entries = postings.entries;
  for (const l of term) {
    const [from, end] = block(postings, l, vector);
    for (let i = from; i < end; i++) {
      const entry = entries[i]!;
      const slot = entry >> 3;
      if ((entry & bits) === 0 || stamps[slot] === stamp) continue;
      stamps[slot] = stamp;
      if ((clean[slot >> 5]! & (1 << (slot & 31))) !== 0 && site[slot] === siteId) into.push(slot);
    }
  }
}
