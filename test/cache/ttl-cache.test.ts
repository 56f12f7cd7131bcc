import test from 'ava';
import { TtlCache } from '../../src/cache/ttl-cache.ts';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('concurrent misses share one load, and hits reuse it until the TTL passes', async (t) => {
  // A TTL far above the loads' 10 ms: on a loaded machine (the whole suite on two cores) an 80 ms
  // TTL sometimes ran out between two lines, and the hit became a second load.
  let ms = 0;
  const cache = new TtlCache<number>({ ttlMs: 1_000, maxEntries: 10, now: () => ms });
  let loads = 0;
  const load = async () => {
    loads += 1;
    await tick(10);
    return loads;
  };
  const values = await Promise.all([cache.get('a', load), cache.get('a', load), cache.get('a', load)]);
  t.deepEqual(values, [1, 1, 1]);
  ms += 999;
  t.is(await cache.get('a', load), 1);
  ms += 1;
  t.is(await cache.get('a', load), 2);
  t.is(loads, 2);
});

test('a failed load is not kept', async (t) => {
  const cache = new TtlCache<string>({ ttlMs: 10_000, maxEntries: 10 });
  await t.throwsAsync(
    cache.get('k', async () => Promise.reject(new Error('db down'))),
    { message: 'db down' },
  );
  t.is(await cache.get('k', async () => 'ok'), 'ok');
});

test('the least recently used entry goes first when full', async (t) => {
  const cache = new TtlCache<string>({ ttlMs: 10_000, maxEntries: 2 });
  await cache.get('a', async () => 'a1');
  await cache.get('b', async () => 'b1');
  await cache.get('a', async () => 'a2'); // a is now the most recent
  await cache.get('c', async () => 'c1'); // evicts b
  t.is(cache.size, 2);
  t.is(await cache.get('a', async () => 'a3'), 'a1');
  t.is(await cache.get('b', async () => 'b2'), 'b2');
});

test('a TTL of 0 turns the cache off', async (t) => {
  const cache = new TtlCache<number>({ ttlMs: 0, maxEntries: 10 });
  let n = 0;
  t.is(await cache.get('x', async () => ++n), 1);
  t.is(await cache.get('x', async () => ++n), 2);
  t.is(cache.size, 0);
});

test('a thenable load (a knex query builder) runs once, not on every hit', async (t) => {
  const cache = new TtlCache<number>({ ttlMs: 10_000, maxEntries: 10 });
  let runs = 0;
  // Like a query builder: each then() runs the query again.
  const builder = { then: (resolve: (v: number) => void) => resolve(++runs) } as PromiseLike<number>;
  for (let i = 0; i < 5; i++) t.is(await cache.get('sites', () => builder), 1);
  t.is(runs, 1);
});
