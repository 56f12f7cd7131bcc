import test from 'ava';
import type { IndexedListing, IndexQuery } from '../../src/search/index-types.ts';
import { SearchIndex } from '../../src/search/memory-index.ts';

// The layout built in the background, checked against an index loaded at once from the same
// listings: the same answers while it is built, after it is swapped in, and for the listings
// written while it was being built.

const WORDS = Array.from({ length: 40 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${Math.floor(i / 26)}`);
const LIMITS = { candidates: 3, window: 2, changed: 0, sliceMs: 0 };

function random(seed: number) {
  return (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) % n;
}

function listingOf(id: number, rand: (n: number) => number): IndexedListing {
  const name = [WORDS[rand(8)]!, WORDS[rand(40)]!];
  const lead = [...name, WORDS[rand(40)]!];
  return { id, siteId: 1 + (id % 3 === 0 ? 1 : 0), votes: rand(50), live: rand(10) > 0, name, lead, all: [...lead, WORDS[rand(40)]!] };
}

function loaded(listings: Iterable<IndexedListing>): SearchIndex {
  const index = new SearchIndex();
  for (const listing of listings) index.put(listing);
  index.finishLoad();
  return index;
}

/** Both sites by votes, and every one- and two-word prefix search of a few words, on three pages. */
function answers(index: SearchIndex) {
  const out: unknown[] = [];
  const term = (word: string) => index.lexemesStarting(word);
  const queries: IndexQuery[] = [];
  for (const a of WORDS.slice(0, 10)) {
    queries.push({ terms: [term(a)], groups: [{ all: 1, none: 0 }] });
    queries.push({ terms: [term(a), term('word')], groups: [{ all: 3, none: 0 }] });
    queries.push({ terms: [term(a), term(WORDS[20]!)], groups: [{ all: 1, none: 2 }] });
  }
  for (const siteId of [1, 2]) {
    for (const offset of [0, 20, 980]) out.push(index.byVotes(siteId, new Set([7, 8]), offset, 20, 101));
    for (const query of queries)
      for (const offset of [0, 20, 60])
        out.push(index.search(siteId, query, new Set([7, 8]), { offset, limit: 20, countLimit: 101, limits: LIMITS }));
  }
  return out;
}

test('a layout built in the background gives the same answers before, while and after it is built', async (t) => {
  const rand = random(11);
  const current = new Map<number, IndexedListing>();
  for (let id = 1; id <= 3_000; id++) current.set(id, listingOf(id, rand));
  const index = loaded(current.values());
  const write = (count: number) => {
    for (let i = 0; i < count; i++) {
      const id = 1 + rand(3_300); // some new listings too
      const kind = rand(4);
      const before = current.get(id);
      if (kind === 0 && before) {
        current.delete(id);
        index.remove(id);
        continue;
      }
      const next = kind === 1 && before ? { ...before, votes: before.votes + 1 + rand(20) } : listingOf(id, rand);
      current.set(id, next);
      index.put(next);
    }
  };

  write(300);
  t.deepEqual(answers(index), answers(loaded(current.values())));
  const building = index.settle(LIMITS);
  t.truthy(building);
  let built = false;
  void building!.then(() => (built = true));
  // Writes and searches while it is built, between its slices.
  for (let slice = 0; slice < 5; slice++) {
    await new Promise((resolve) => setImmediate(resolve));
    write(40);
    t.deepEqual(answers(index), answers(loaded(current.values())));
  }
  t.false(built, 'the layout was still being built during the writes');
  t.is(index.settle(LIMITS), building, 'one layout is built at a time');
  await building;
  t.deepEqual(answers(index), answers(loaded(current.values())));
  // The listings written meanwhile were put again: a next layout takes them in as well.
  write(50);
  await index.settle(LIMITS);
  t.deepEqual(answers(index), answers(loaded(current.values())));
  t.is(index.size, loaded(current.values()).size);
});

test('a layout that is built within its first slice lets the next one be built', async (t) => {
  const rand = random(5);
  const current = new Map<number, IndexedListing>();
  for (let id = 1; id <= 30; id++) current.set(id, listingOf(id, rand));
  const index = loaded(current.values());
  t.is(index.layouts, 1, 'the load lays the index out');
  // A small index and a long slice: each layout is built at once, with no pause between slices.
  const limits = { ...LIMITS, sliceMs: 60_000 };
  const write = (id: number) => {
    current.set(id, listingOf(id, rand));
    index.put(current.get(id)!);
  };

  write(31);
  const first = index.settle(limits);
  t.truthy(first);
  await first;
  t.is(index.layouts, 2);
  write(32);
  const second = index.settle(limits);
  t.truthy(second);
  t.not(second, first, 'a new layout, not the finished one');
  await second;
  t.is(index.layouts, 3);
  t.is(index.settle(limits), null, 'nothing written since: no layout due');
  t.deepEqual(answers(index), answers(loaded(current.values())));
});
