/**
 * `npm run bench:pages`: the public pages with 10,000 live listings of this week (in categories,
 * with votes, some featured): the front page, /launches, listing pages (a different one of 2,000
 * each request), a category page and /sitemap.xml, against a bare Koa handler in alternating
 * rounds at 50 connections, as a browser of a visitor without a session (asking for compression).
 * Targets: each page p99 < 50 ms and ≥ 20 % of the bare handler's requests per second. The
 * listing pages are also measured on an app that keeps no page, where every request renders.
 */
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { CATEGORY_SLUGS } from '../src/domain/crawl/categories.ts';
import { operations } from '../src/operations/index.ts';
import { createServices } from '../src/services.ts';
import { benchDatabase, compare, listen, printTable, runBench } from './harness.ts';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 10_000);
/** Distinct listing pages the listing target cycles through. */
const LISTING_PAGES = 2_000;
/** A visitor's browser (listing views by bots are not counted; a person's are). */
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

async function main() {
  const database = await benchDatabase(LISTINGS);
  try {
    const env = { LOG_LEVEL: 'silent', PORT: '0', TEMPORAL_ADDRESS: '127.0.0.1:1', DATA_DIR: database.dataDir } as const;
    const services = createServices(loadConfig(env), { databaseUrl: database.databaseUrl, temporalAddress: '127.0.0.1:1' });
    const db = services.db;
    // Every listing in one or two categories, week votes as its votes (the seed leaves them 0).
    await db.raw(
      `UPDATE listings SET categories = ARRAY[(?::text[])[1 + id % ?], (?::text[])[1 + (id / 7) % ?]], week_votes = votes WHERE slug LIKE 'bench-%'`,
      [[...CATEGORY_SLUGS], CATEGORY_SLUGS.length, [...CATEGORY_SLUGS], CATEGORY_SLUGS.length],
    );
    await db.raw('ANALYZE listings');
    const slugs: string[] = (await db('listings').where('slug', 'like', 'bench-%').orderBy('id').limit(LISTING_PAGES).pluck('slug')).map(
      (s: string) => `/listings/${s}`,
    );
    process.env.BENCH_PATHS = JSON.stringify(slugs);

    const app = await listen(createApp(services, operations).callback());
    // The same app keeping no page: what a render of a listing page costs.
    const uncachedServices = createServices(loadConfig({ ...env, PAGE_CACHE_TTL_MS: '0' }), {
      databaseUrl: database.databaseUrl,
      temporalAddress: '127.0.0.1:1',
    });
    const uncached = await listen(createApp(uncachedServices, operations).callback());
    const bare = new Koa();
    bare.use((ctx) => {
      ctx.body = 'ok';
    });
    const bareServer = await listen(bare.callback());
    for (const path of ['/', '/launches', slugs[0]!, '/categories/productivity', '/sitemap.xml']) {
      const res = await fetch(app.url + path);
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${path}: ${res.status}\n${body.slice(0, 500)}`);
      console.log(`${path}: ${res.status}, ${body.length} bytes`);
    }
    // A process that has been serving has the listing pages visitors ask for kept: each is asked once first.
    for (let i = 0; i < slugs.length; i += 10)
      await Promise.all(slugs.slice(i, i + 10).map(async (path) => (await fetch(app.url + path)).arrayBuffer()));
    const rotate = fileURLToPath(new URL('./rotate-path.cjs', import.meta.url));
    // What every browser sends (and crawlers ask for gzip): visitors get pages compressed.
    const headers = { 'accept-encoding': 'gzip, deflate, br, zstd', 'user-agent': BROWSER };
    const results = await compare([
      { name: 'bare Koa (constant text)', options: { url: `${bareServer.url}/` } },
      { name: 'front page /', options: { url: `${app.url}/`, headers } },
      { name: '/launches', options: { url: `${app.url}/launches`, headers } },
      { name: 'listing pages', options: { url: app.url, headers, requests: [{ setupRequest: rotate as never }] } },
      { name: 'listing pages, none kept', options: { url: uncached.url, headers, requests: [{ setupRequest: rotate as never }] } },
      { name: 'category /categories/productivity', options: { url: `${app.url}/categories/productivity`, headers } },
      { name: '/sitemap.xml', options: { url: `${app.url}/sitemap.xml`, headers } },
    ]);
    printTable(results);
    const [baseline, ...pages] = results;
    console.log('');
    for (const r of pages.filter((p) => !p.name.endsWith('none kept'))) {
      const share = r.rps / baseline!.rps;
      const met = r.p99 < 50 && share >= 0.2;
      console.log(
        `${r.name.padEnd(36)} p99 ${r.p99} ms, ${(share * 100).toFixed(0)} % of bare — targets p99 < 50 ms, ≥ 20 %: ${met ? 'met' : 'MISSED'}`,
      );
    }
    for (const server of [app, uncached, bareServer]) await server.close();
    await services.close();
    await uncachedServices.close();
  } finally {
    await database.stop();
  }
}

runBench(main);
