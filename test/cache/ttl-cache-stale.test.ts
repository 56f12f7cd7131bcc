import test from 'ava';
import { TtlCache } from '../../src/cache/ttl-cache.ts';

/** serveStale: an aged entry answers at once while one reload makes the next. */

// The entries age by this clock; aging moves it past the TTL and lets pending reloads settle.
let ms = 0;
const aged = async () => {
  ms += 2;
  await new Promise((resolve) => setImmediate(resolve));
};

test('an aged value is answered while one reload runs; the reload then answers', async (t) => {
  const cache = new TtlCache<string>({ ttlMs: 1, maxEntries: 10, serveStale: true, now: () => ms });
  await cache.get('k', async () => 'old');
  await aged();
  let finish!: (v: string) => void;
  let reloads = 0;
  const reload = () => (reloads++, new Promise<string>((resolve) => (finish = resolve)));
  t.is(await cache.get('k', reload), 'old');
  t.is(await cache.get('k', reload), 'old', 'no caller waits for the reload');
  t.is(reloads, 1, 'one reload for many callers');
  finish('new');
  await aged();
  t.is(await cache.get('k', async () => 'newer'), 'new');
});

test('a failed reload forgets the aged value: the next caller loads and sees the error', async (t) => {
  const cache = new TtlCache<string>({ ttlMs: 1, maxEntries: 10, serveStale: true, now: () => ms });
  await cache.get('k', async () => 'old');
  await aged();
  t.is(await cache.get('k', async () => Promise.reject(new Error('db down'))), 'old');
  await aged();
  await t.throwsAsync(
    cache.get('k', async () => Promise.reject(new Error('still down'))),
    { message: 'still down' },
  );
  t.is(await cache.get('k', async () => 'back'), 'back');
});

test('without serveStale an aged value is loaded again before it is answered', async (t) => {
  const cache = new TtlCache<string>({ ttlMs: 1, maxEntries: 10, now: () => ms });
  await cache.get('k', async () => 'old');
  await aged();
  t.is(await cache.get('k', async () => 'new'), 'new');
});
