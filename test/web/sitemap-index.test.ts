import test from 'ava';
import { XMLParser } from 'fast-xml-parser';
import { request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';

/** Beyond SITEMAP_URLS_PER_FILE URLs, /sitemap.xml is an index of files that together hold every URL once. */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { SITEMAP_URLS_PER_FILE: '4', BROWSE_CACHE_TTL_MS: '0' });
});
test.after.always(() => env?.close());

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' });

async function get(path: string) {
  const res = await request(env, 'GET', path);
  return { status: res.status, type: res.headers.get('content-type'), text: String(res.body) };
}

test('a sitemap index of files of at most the limit, each URL in exactly one file', async (t) => {
  for (let i = 0; i < 7; i++) await insertLiveListing(env.services.db, { name: `Indexed ${i}`, url: `https://indexed${i}.example.com/` });
  const index = await get('/sitemap.xml');
  t.is(index.status, 200);
  t.is(index.type, 'application/xml; charset=utf-8');
  const doc = xml.parse(index.text);
  t.is(doc.sitemapindex['@xmlns'], 'http://www.sitemaps.org/schemas/sitemap/0.9');
  const files: { loc: string; lastmod: string }[] = [doc.sitemapindex.sitemap].flat();
  // 3 site pages + 7 listings + 1 week: 11 URLs, 4 a file.
  t.deepEqual(
    files.map((f) => f.loc),
    [1, 2, 3].map((n) => `${env.baseUrl}/sitemaps/${n}.xml`),
  );
  t.true(files.every((f) => !Number.isNaN(Date.parse(f.lastmod))));

  const locs: string[] = [];
  for (const [n, file] of files.entries()) {
    const res = await get(new URL(file.loc).pathname);
    t.is(res.status, 200);
    const urls: { loc: string }[] = [xml.parse(res.text).urlset.url].flat();
    t.is(urls.length, n < 2 ? 4 : 3);
    locs.push(...urls.map((u) => u.loc));
  }
  t.is(new Set(locs).size, 11);
  t.true(locs.includes(`${env.baseUrl}/listings/indexed-6`));
  t.true(locs.includes(`${env.baseUrl}/`));

  t.is((await get('/sitemaps/4.xml')).status, 404);
  t.is((await get('/sitemaps/0.xml')).status, 404);
  t.is((await get('/sitemaps/one.xml')).status, 404);
});
