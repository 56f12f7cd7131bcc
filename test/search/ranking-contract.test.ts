import type { ListingStatus } from '../../src/domain/fields.ts';
import test from 'ava';
import type { Db } from '../../src/db/knex.ts';
import type { SearchEngine, SearchPage } from '../../src/domain/listings/search-port.ts';
import { isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { MemorySearch } from '../../src/search/memory-engine.ts';
import { PostgresSearch } from '../../src/search/postgres-engine.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { featureListing } from '../helpers/orders.ts';
import { testOpenSearch, type TestOpenSearch } from '../helpers/opensearch.ts';

// The ranking rules of search_listings as requirements, each stated once and run against every
// engine. The parity test (engine-parity.test.ts) shows the engines agree; this shows what they
// agree on is right, so that both cannot be wrong together. Each rule uses words of its own.
let env: TestEnv;
let engines: Array<[string, SearchEngine]>;
let siteId: number;
let openSearch: TestOpenSearch;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  const db = env.services.db;
  const memory = new MemorySearch(db);
  openSearch = testOpenSearch(db, import.meta.url);
  await Promise.all([memory.ready(), openSearch.fed.ready()]);
  engines = [
    ['memory', memory],
    ['postgres', new PostgresSearch(db, { cacheTtlMs: 0 })],
    ['opensearch', openSearch.fed],
  ];
  siteId = (await db('sites').where({ key: 'main' }).first('id'))!.id;
});
test.after.always(() => env?.close());
// Every answer of the OpenSearch engine came from OpenSearch, not from its PostgreSQL fallback.
test.after('OpenSearch answered every search itself', (t) => t.is(openSearch.engine.answeredByPostgres, 0));

type Query = { q?: string; page?: number; perPage?: number };

/** The same search asked of each engine, for `check` to judge each answer. */
async function eachEngine(query: Query, check: (found: SearchPage, engine: string) => void): Promise<void> {
  for (const [name, engine] of engines) {
    check(
      await engine.search({ siteId, siteKey: 'main', baseUrl: '', q: query.q, page: query.page ?? 1, perPage: query.perPage ?? 20 }),
      name,
    );
  }
}

const ids = (found: SearchPage) => found.items.map((i) => i.id);

/** Live listings made in one statement, named `${name} ${g}` with `votes` (SQL over g). */
async function insertMany(db: Db, slug: string, count: number, name: string, votes: string): Promise<void> {
  await db.raw(
    `INSERT INTO listings (site_id, slug, company_domain, name, url, status, votes, launch_week, live_at)
     SELECT ?, ? || g, ? || g || '.example.org', ? || ' ' || g, 'https://' || ? || g || '.example.org/', 'live', ${votes}, ?, now()
     FROM generate_series(1, ?) g`,
    [siteId, `${slug}-`, slug, name, slug, isoWeekStart(new Date()), count],
  );
}

test.serial(
  'a match in the name or web address ranks above one in the headline, above one in the summary, whatever the votes',
  async (t) => {
    const db = env.services.db;
    const summary = await insertLiveListing(db, { name: 'Tallow Shop', summary: 'Candles of brindlewax', votes: 900 });
    const headline = await insertLiveListing(db, { name: 'Wick Works', headline: 'Brindlewax candles', votes: 500 });
    const address = await insertLiveListing(db, { name: 'Taper Co', url: 'https://brindlewax.example.net/', votes: 1 });
    const name = await insertLiveListing(db, { name: 'Brindlewax', votes: 0 });
    await eachEngine({ q: 'brindlewax' }, (found, engine) => {
      t.deepEqual(ids(found).slice(0, 2).sort(), [address, name].sort(), `${engine}: names and addresses first`);
      t.deepEqual(ids(found).slice(2), [headline, summary], `${engine}: then the headline, then the summary`);
      t.is(found.total, 4, engine);
    });
  },
);

test.serial('within a tier, most votes first; equal votes, the older listing (lower id) first', async (t) => {
  const db = env.services.db;
  const low = await insertLiveListing(db, { name: 'Quorvel Low', votes: 2 });
  const tieFirst = await insertLiveListing(db, { name: 'Quorvel Tie A', votes: 7 });
  const tieSecond = await insertLiveListing(db, { name: 'Quorvel Tie B', votes: 7 });
  const high = await insertLiveListing(db, { name: 'Quorvel High', votes: 40 });
  await eachEngine({ q: 'quorvel' }, (found, engine) => {
    t.deepEqual(ids(found), [high, tieFirst, tieSecond, low], engine);
  });
  await eachEngine({ q: 'quorvel', perPage: 1, page: 3 }, (found, engine) => {
    t.deepEqual(ids(found), [tieSecond], `${engine}: pages cut the same order`);
  });
});

test.serial(
  'listings featured this week come first (marked), best tier then votes among them; others follow without repeats',
  async (t) => {
    const db = env.services.db;
    const top = await insertLiveListing(db, { name: 'Snorkvane Prime', votes: 300 });
    const featuredSummary = await insertLiveListing(db, { name: 'Reef Gear', summary: 'All about snorkvane', votes: 90 });
    const featuredName = await insertLiveListing(db, { name: 'Snorkvane Lite', votes: 1 });
    const lastWeek = await insertLiveListing(db, { name: 'Snorkvane Old', votes: 5 });
    await featureListing(db, featuredSummary);
    await featureListing(db, featuredName);
    await featureListing(db, lastWeek);
    await db('featured_placements')
      .where({ listing_id: lastWeek })
      .update({ week_start: isoWeekStart(new Date(Date.now() - 7 * 86_400_000)) });
    await eachEngine({ q: 'snorkvane' }, (found, engine) => {
      t.deepEqual(
        found.items.map((i) => [i.id, i.featured]),
        [
          [featuredName, true],
          [featuredSummary, true],
          [top, false],
          [lastWeek, false],
        ],
        engine,
      );
    });
    await eachEngine({ q: 'snorkvane', perPage: 2, page: 2 }, (found, engine) => {
      t.deepEqual(ids(found), [top, lastWeek], `${engine}: featured listings are not repeated on later pages`);
    });
    // Without words: this week's featured first, then every live listing by votes.
    await eachEngine({ perPage: 100 }, (found, engine) => {
      const featured = found.items.filter((i) => i.featured);
      t.true(featured.length >= 2, engine);
      t.deepEqual(found.items.slice(0, featured.length), featured, `${engine}: the featured first`);
      const votes = found.items.slice(featured.length).map((i) => i.votes);
      t.deepEqual(
        votes,
        [...votes].sort((a, b) => b - a),
        `${engine}: then most votes first`,
      );
      t.false(ids(found).slice(featured.length).includes(featuredName), `${engine}: not repeated`);
    });
  },
);

test.serial('words match as prefixes of words, in any case; every word must match', async (t) => {
  const db = env.services.db;
  const a = await insertLiveListing(db, { name: 'Flumbridge Analytics', votes: 3 });
  const b = await insertLiveListing(db, { name: 'Flumbridge Design', votes: 2 });
  await eachEngine({ q: 'FLUMB' }, (found, engine) => t.deepEqual(ids(found), [a, b], engine));
  await eachEngine({ q: 'flumb des' }, (found, engine) => t.deepEqual(ids(found), [b], engine));
});

test.serial('headlines and summaries match english stems; or, exclusions and quoted phrases work as in web search', async (t) => {
  const db = env.services.db;
  const stems = await insertLiveListing(db, { name: 'Pelorix', headline: 'Quibbles settled', votes: 1 });
  const other = await insertLiveListing(db, { name: 'Pelorix Two', headline: 'Pastries settled fast', votes: 0 });
  await eachEngine({ q: 'quibbling' }, (found, engine) => t.deepEqual(ids(found), [stems], `${engine}: a stem`));
  await eachEngine({ q: 'pelorix -two' }, (found, engine) => t.deepEqual(ids(found), [stems], `${engine}: exclusion`));
  await eachEngine({ q: 'quibbles or pastries' }, (found, engine) => t.deepEqual(ids(found), [stems, other], `${engine}: or`));
  await eachEngine({ q: '"settled fast"' }, (found, engine) => t.deepEqual(ids(found), [other], `${engine}: phrase`));
  await eachEngine({ q: '"fast settled"' }, (found, engine) => t.deepEqual(ids(found), [], `${engine}: words in that order`));
});

// The tiers test the words in their own vector but an excluded word in the whole listing, as the
// count does: pages and totals agree.
test.serial('an excluded word leaves out a listing that holds it anywhere, also when the rest matches its name', async (t) => {
  const db = env.services.db;
  const inHeadline = await insertLiveListing(db, { name: 'Vorquintel', headline: 'Pastry by Glimmorax', votes: 1 });
  await insertLiveListing(db, { name: 'Oven Works', headline: 'Vorquintel ovens', summary: 'Pastry too', votes: 2 });
  const kept = await insertLiveListing(db, { name: 'Vorquintel Two', headline: 'Bread', votes: 0 });
  await eachEngine({ q: 'vorquintel -pastry' }, (found, engine) => {
    t.deepEqual(ids(found), [kept], engine);
    t.is(found.total, 1, `${engine}: the total counts what the pages hold`);
  });
  // An exclusion belongs to its group: the other group still finds the listing, in its own tier.
  await eachEngine({ q: 'vorquintel -pastry or glimmorax' }, (found, engine) => {
    t.deepEqual(ids(found), [kept, inHeadline], `${engine}: the name by its first group, the headline by its second`);
    t.is(found.total, 2, engine);
  });
});

test.serial('a search that finds nothing is retried with misspelt words corrected; one that finds something is not', async (t) => {
  const db = env.services.db;
  const right = await insertLiveListing(db, { name: 'Gravolune', votes: 1 });
  const near = await insertLiveListing(db, { name: 'Gravolute', votes: 5 });
  await eachEngine({ q: 'gravoulne' }, (found, engine) => t.deepEqual(ids(found), [right], `${engine}: swapped letters`));
  await eachEngine({ q: 'gravolne' }, (found, engine) => t.deepEqual(ids(found), [right], `${engine}: a letter left out`));
  await eachEngine({ q: 'gravolute' }, (found, engine) => t.deepEqual(ids(found), [near], `${engine}: a match is not corrected`));
  await eachEngine({ q: 'gxxvolxxe' }, (found, engine) => t.deepEqual(ids(found), [], `${engine}: too far to correct`));
});

test.serial('only live listings of the site are found', async (t) => {
  const db = env.services.db;
  const live = await insertLiveListing(db, { name: 'Ostrivane Live' });
  const removed = await insertLiveListing(db, { name: 'Ostrivane Removed' });
  await db('listings')
    .where({ id: removed })
    .update({ status: 'removed' as ListingStatus });
  const other = await db('sites').whereNot({ id: siteId }).first('key');
  if (other) await insertLiveListing(db, { name: 'Ostrivane Elsewhere', site: other.key });
  await eachEngine({ q: 'ostrivane' }, (found, engine) => t.deepEqual(ids(found), [live], engine));
});

test.serial('totals are counted to 100 and say when there are more; results stop after the first 1,000', async (t) => {
  await insertMany(env.services.db, 'plov', 1_010, 'Plovarin', 'g % 17');
  await eachEngine({ q: 'plovarin', perPage: 100 }, (found, engine) => {
    t.is(found.total, 100, engine);
    t.true(found.total_capped, engine);
    t.is(found.items.length, 100, engine);
  });
  await eachEngine({ q: 'plovarin', perPage: 100, page: 10 }, (found, engine) => t.is(found.items.length, 100, engine));
  await eachEngine({ q: 'plovarin', perPage: 100, page: 11 }, (found, engine) => {
    t.deepEqual(found.items, [], `${engine}: nothing past 1,000`);
    t.is(found.total, 100, engine);
  });
  await insertMany(env.services.db, 'plix', 3, 'Plixoran', 'g');
  await eachEngine({ q: 'plixoran' }, (found, engine) => {
    t.is(found.total, 3, engine);
    t.false(found.total_capped, engine);
  });
});
