import test from 'ava';
import { VisitorPageCache, type KeptPage } from '../../src/web/visitor-page-cache.ts';

/** The kept pages of one process: fresh copies, the old copy while one visitor renders anew, one render for a crowd. */

const page = (text: string): KeptPage => ({ csp: "default-src 'self'", html: Buffer.from(text), gzip: Buffer.from(text) });
const text = async (kept: KeptPage | Promise<KeptPage | null>) => (await kept)?.html.toString() ?? null;

/** A render that finishes when the test says so. */
function pendingRender() {
  let finish!: (p: KeptPage | null) => void;
  const promise = new Promise<KeptPage | null>((resolve) => (finish = resolve));
  return { render: () => promise, finish };
}

test('a fresh copy is served without a render; concurrent misses share one render', async (t) => {
  const cache = new VisitorPageCache(3_600_000);
  let renders = 0;
  const { render, finish } = pendingRender();
  const counted = () => (renders++, render());
  const first = cache.get('a', counted);
  const second = cache.get('a', counted);
  finish(page('one'));
  t.deepEqual([await text(first), await text(second)], ['one', 'one']);
  t.is(renders, 1);
  const kept = cache.get('a', counted);
  t.false(kept instanceof Promise, 'a kept copy is there at once');
  t.is(await text(kept), 'one');
  t.is(renders, 1);
});

test('an old copy is served while one visitor renders the page anew', async (t) => {
  const cache = new VisitorPageCache(1);
  await cache.get('a', async () => page('old'));
  await new Promise((resolve) => setTimeout(resolve, 5));
  const { render, finish } = pendingRender();
  const renderer = cache.get('a', render);
  t.true(renderer instanceof Promise, 'the first visitor after the copy aged renders');
  t.is(await text(cache.get('a', () => t.fail() as never)), 'old', 'the others get the old copy meanwhile');
  finish(page('new'));
  t.is(await text(renderer), 'new');
});

test('a page rendered as null is not kept; forget() drops the matching copies and renders under way', async (t) => {
  const cache = new VisitorPageCache(3_600_000);
  t.is(await cache.get('missing', async () => null), null);
  t.is(await text(cache.get('missing', async () => page('now'))), 'now', 'rendered again');
  await cache.get('other', async () => page('other'));

  const { render, finish } = pendingRender();
  const before = cache.get('b', render);
  cache.forget((key) => key !== 'other');
  finish(page('from before the forget'));
  t.is(await text(before), 'from before the forget', 'its own visitor still gets it');
  t.is(await text(cache.get('b', async () => page('after'))), 'after', 'but it was not kept');
  t.is(await text(cache.get('missing', async () => page('again'))), 'again');
  t.is(await text(cache.get('other', () => t.fail() as never)), 'other', 'what did not match stays');
  cache.forget();
  t.is(cache.size, 0);
});

test('a cache with no time to live keeps nothing', (t) => {
  t.false(new VisitorPageCache(0).enabled);
  t.true(new VisitorPageCache(1).enabled);
});
