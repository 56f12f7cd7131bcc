import test from 'ava';
import { VisitorPageCache, type KeptPage } from '../../src/web/visitor-page-cache.ts';

/**
 * The kept pages of one process: fresh copies, an aged copy served while the page is rendered
 * again apart from the request, one render for a crowd, forgetting.
 */

const page = (text: string): KeptPage => ({
  headers: { 'content-type': 'text/html' },
  plain: Buffer.from(text),
  gzip: Buffer.from(text),
  br: Buffer.from(text),
});
const text = async (kept: KeptPage | Promise<KeptPage | null>) => (await kept)?.plain.toString() ?? null;
const never = (): Promise<KeptPage | null> => {
  throw new Error('not expected to render');
};
const settled = () => new Promise((resolve) => setImmediate(resolve));

/** A cache whose copies age only when the test moves its clock on (`age()`): no race with a busy machine. */
function agingCache() {
  let now = 0;
  const cache = new VisitorPageCache(1, () => now);
  return { cache, age: () => void (now += 5) };
}

/** A render that finishes when the test says so. */
function pendingRender() {
  let finish!: (p: KeptPage | null) => void;
  let fail!: (err: Error) => void;
  const promise = new Promise<KeptPage | null>((resolve, reject) => ((finish = resolve), (fail = reject)));
  return { render: () => promise, finish, fail };
}

test('a fresh copy is served without a render; concurrent misses share one render', async (t) => {
  const cache = new VisitorPageCache(3_600_000);
  let renders = 0;
  const { render, finish } = pendingRender();
  const counted = () => (renders++, render());
  const first = cache.get('a', counted, never);
  const second = cache.get('a', counted, never);
  finish(page('one'));
  t.deepEqual([await text(first), await text(second)], ['one', 'one']);
  t.is(renders, 1);
  const kept = cache.get('a', never, never);
  t.false(kept instanceof Promise, 'a kept copy is there at once');
  t.is(await text(kept), 'one');
});

test('an aged copy is served at once while one render apart from the requests makes the next', async (t) => {
  const { cache, age } = agingCache();
  await cache.get('a', async () => page('old'), never);
  age();
  const { render, finish } = pendingRender();
  let refreshes = 0;
  const refresh = () => (refreshes++, render());
  t.is(await text(cache.get('a', never, refresh)), 'old');
  t.is(await text(cache.get('a', never, refresh)), 'old');
  t.is(refreshes, 1, 'one refresh for the aged copy');
  finish(page('new'));
  await settled();
  t.is(await text(cache.get('a', never, async () => page('newer'))), 'new');
});

test('a refresh that fails or finds no page forgets the aged copy: the next visitor renders it', async (t) => {
  const { cache, age } = agingCache();
  await cache.get('gone', async () => page('old'), never);
  await cache.get('broken', async () => page('old'), never);
  age();
  t.is(await text(cache.get('gone', never, async () => null)), 'old');
  const { render, fail } = pendingRender();
  t.is(await text(cache.get('broken', never, render)), 'old');
  fail(new Error('database down'));
  await settled();
  t.is(await text(cache.get('gone', async () => page('404 page, not kept'), never)), '404 page, not kept');
  t.is(await text(cache.get('broken', async () => page('rendered by the visitor'), never)), 'rendered by the visitor');
});

test('at most two aged pages are rendered again at a time; the others wait for a later visit', async (t) => {
  const { cache, age } = agingCache();
  for (const key of ['a', 'b', 'c']) await cache.get(key, async () => page(key), never);
  age();
  const held = pendingRender();
  let refreshes = 0;
  for (const key of ['a', 'b', 'c']) t.is(await text(cache.get(key, never, () => (refreshes++, held.render()))), key);
  t.is(refreshes, 2);
  held.finish(page('new'));
  await settled();
  t.is(await text(cache.get('c', never, async () => (refreshes++, page('c, new')))), 'c');
  t.is(refreshes, 3, 'a slot is free again');
});

test('a page rendered as null is not kept; forget() drops the matching copies and renders under way', async (t) => {
  const cache = new VisitorPageCache(3_600_000);
  t.is(await cache.get('missing', async () => null, never), null);
  t.is(await text(cache.get('missing', async () => page('now'), never)), 'now', 'rendered again');
  await cache.get('other', async () => page('other'), never);

  const { render, finish } = pendingRender();
  const before = cache.get('b', render, never);
  cache.forget((key) => key !== 'other');
  finish(page('from before the forget'));
  t.is(await text(before), 'from before the forget', 'its own visitor still gets it');
  t.is(await text(cache.get('b', async () => page('after'), never)), 'after', 'but it was not kept');
  t.is(await text(cache.get('missing', async () => page('again'), never)), 'again');
  t.is(await text(cache.get('other', never, never)), 'other', 'what did not match stays');
  cache.forget();
  t.is(cache.size, 0);
});

test('a cache with no time to live keeps nothing', (t) => {
  t.false(new VisitorPageCache(0).enabled);
  t.true(new VisitorPageCache(1).enabled);
});

test('the lane in front of the routes gets a remembered address’s page while it is fresh or being rendered again', async (t) => {
  const { cache, age } = agingCache();
  const kept = (address: string) => cache.keptAt(address)?.page.plain.toString() ?? null;
  t.is(kept('host\n\n/a'), null, 'an address nobody asked for');
  await cache.get('a', async () => page('a'), never);
  cache.remember('host\n\n/a', { key: 'a' });
  cache.remember('host\n\n/a?utm_source=x', { key: 'a' });
  t.is(kept('host\n\n/a'), 'a');
  t.is(kept('host\n\n/a?utm_source=x'), 'a', 'two addresses, one page');
  age();
  t.is(kept('host\n\n/a'), null, 'aged: the route sends it and starts the render');
  const held = pendingRender();
  t.is(await text(cache.get('a', never, held.render)), 'a');
  t.is(kept('host\n\n/a'), 'a', 'aged while its render is under way');
  held.finish(page('a, new'));
  await settled();
  t.is(await text(cache.get('a', never, async () => page('a, newer'))), 'a, new', 'the render was kept');
  cache.remember('host\n\n/a', { key: 'a' });
  cache.forget();
  t.is(kept('host\n\n/a'), null, 'forgotten pages are forgotten for the lane too');
});

test('while no render can start, the lane sends aged pages instead of routing each visit', async (t) => {
  const { cache, age } = agingCache();
  for (const key of ['a', 'b', 'c']) {
    await cache.get(key, async () => page(key), never);
    cache.remember(`/${key}`, { key });
  }
  age();
  t.is(cache.keptAt('/c'), undefined);
  const held = pendingRender();
  for (const key of ['a', 'b']) await cache.get(key, never, held.render);
  t.is(cache.keptAt('/c')?.page.plain.toString(), 'c', 'both render slots are taken');
  held.finish(page('new'));
  await settled();
  t.is(cache.keptAt('/c'), undefined, 'a slot is free: the next visit goes to the route and renders it');
});
