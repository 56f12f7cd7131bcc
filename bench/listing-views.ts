/**
 * `npm run bench:listing-views`: what counting listing page views costs. The same
 * listing pages (GET /listings/{slug}, rotating over 500 listings, as a browser coming from
 * another site) against two apps on one database, one counting views (as deployed) and one
 * with counting off (`createServices(..., { countPageViews: false })`), in alternating rounds at
 * 50 connections. Prints req/s and p99 of both, then checks that every counted view was stored.
 */
import { fileURLToPath } from 'node:url';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { operations } from '../src/operations/index.ts';
import { createServices } from '../src/services.ts';
import { benchDatabase, compare, listen, printTable, runBench } from './harness.ts';

const LISTINGS = 500;
const PERSON = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';

async function main() {
  const database = await benchDatabase(LISTINGS);
  try {
    const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', TEMPORAL_ADDRESS: '127.0.0.1:1', DATA_DIR: database.dataDir });
    const endpoints = { databaseUrl: database.databaseUrl, temporalAddress: '127.0.0.1:1' };
    const counting = createServices(config, endpoints);
    const silent = createServices(config, endpoints, undefined, { countPageViews: false });
    const countingApp = createApp(counting, operations).callback();
    let answered = 0; // listing pages the counting app served, warm-up included
    const on = await listen(async (req, res) => {
      if (req.url?.startsWith('/listings/')) answered++;
      await countingApp(req, res);
    });
    const off = await listen(createApp(silent, operations).callback());
    const db = counting.db;
    await db('listing_hourly_counts').delete();
    const slugs: string[] = (await db('listings').where('slug', 'like', 'bench-%').orderBy('id').limit(LISTINGS).select('slug')).map(
      (r: { slug: string }) => r.slug,
    );
    process.env.BENCH_PATHS = JSON.stringify(slugs.map((slug) => `/listings/${slug}`));
    const requests = [{ setupRequest: fileURLToPath(new URL('./rotate-path.cjs', import.meta.url)) as never }];
    const headers = { 'user-agent': PERSON, referer: 'https://news.example.org/launches' };
    const results = await compare([
      { name: 'listing page, counting off', options: { url: off.url, headers, requests } },
      { name: 'listing page, counting on', options: { url: on.url, headers, requests } },
    ]);
    printTable(results);
    const [offResult, onResult] = results;
    for (const r of [onResult!, offResult!]) {
      console.log(`${r.name}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms, ${Math.round(r.cpuUs)} µs of server CPU per page`);
    }

    // Every view the counting app answered (warm-up included) must be in the table once flushed.
    await on.close();
    await counting.pageCounters.flush();
    const { rows } = await db.raw(`SELECT coalesce(sum(views), 0)::int AS views, count(*)::int AS rows FROM listing_hourly_counts`);
    console.log(
      `stored: ${rows[0].views} views in ${rows[0].rows} rows; the counting app served ${answered} pages, the other app's none counted`,
    );
    if (rows[0].views !== answered) throw new Error(`views stored (${rows[0].views}) differ from pages served (${answered})`);
    await off.close();
    await silent.close();
    await counting.close();
  } finally {
    await database.stop();
  }
}

runBench(main);
