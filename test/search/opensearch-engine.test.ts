import type { ListingStatus } from '../../src/domain/fields.ts';
import test from 'ava';
import pino from 'pino';
import { OpenSearchFeed, runSearchFeed } from '../../src/search/opensearch-feed.ts';
import { aliasTarget, listingDocuments, openSearchClient, writeDocuments } from '../../src/search/opensearch-index.ts';
import { OpenSearchSearch } from '../../src/search/opensearch-engine.ts';
import { PostgresSearch } from '../../src/search/postgres-engine.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/eventually.ts';
import { adminInProcess } from '../helpers/admin.ts';
import { testOpenSearch, testOpenSearchUrl, type TestOpenSearch } from '../helpers/opensearch.ts';
import { featureListing } from '../helpers/orders.ts';
import { differences, seedListings } from '../helpers/search-parity.ts';

// The OpenSearch engine against the PostgreSQL one (the reference) on a real OpenSearch node, and
// its feed: what it writes, when, and what a crash, a stale feeder or a reindex leave.
let env: TestEnv;
let os: TestOpenSearch;
let postgres: PostgresSearch;
let site: number;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  os = testOpenSearch(env.services.db, import.meta.url);
  postgres = new PostgresSearch(env.services.db, { cacheTtlMs: 0 });
  site = (await env.services.db('sites').orderBy('id').first('id'))!.id as number;
});
test.after.always(() => env?.close());

const searchIds = async (q: string) =>
  (await os.engine.search({ siteId: site, siteKey: 'main', baseUrl: '', q, page: 1, perPage: 20 })).items.map((i) => i.id);

test.serial('OpenSearch gives the answers PostgreSQL gives, before and after listings change', async (t) => {
  const db = env.services.db;
  await seedListings(db, 1_500, 'diff');
  const live = await db('listings').where({ site_id: site, status: 'live' }).orderBy('id').pluck('id');
  await featureListing(db, live[3]);
  await featureListing(db, live[40]);
  await os.feed.round();
  t.deepEqual(await differences(os.engine, postgres, site), [], 'OpenSearch answered differently from PostgreSQL');

  // Votes, words, status, deletion, placements and new listings, all written by the next round.
  await db('listings').whereIn('id', live.slice(0, 50)).increment('votes', 5);
  await db('listings').where({ id: live[60] }).update({ name: 'Zorbix Analytics', headline: 'Rockets for clouds' });
  await db('listings')
    .where({ id: live[61] })
    .update({ status: 'removed' as ListingStatus });
  await db('listings').where({ id: live[62] }).delete();
  await db('listings').where({ site_id: site, status: 'draft' }).limit(5).update({ status: 'live' });
  await featureListing(db, live[80]);
  await seedListings(db, 200, 'late');
  t.true((await os.feed.round()) >= 50 + 3 + 5 + 1 + 200);
  t.deepEqual(await differences(os.engine, postgres, site), [], 'OpenSearch answered differently after the changes');
  const makers = (await db('sites').orderBy('id').offset(1).first('id'))!.id as number;
  t.deepEqual(await differences(os.engine, postgres, makers), [], 'OpenSearch answered differently on the second site');
  t.is(os.engine.answeredByPostgres, 0, 'every answer came from OpenSearch');
  // Nothing changed: a round writes nothing.
  t.is(await os.feed.round(), 0);
});

test.serial('a write is searchable after the next round, and a listing taken down is gone after it', async (t) => {
  const db = env.services.db;
  await seedListings(db, 1, 'fresh');
  const [id] = await db('listings').where({ slug: 'fresh-1' }).pluck('id');
  await db('listings').where({ id }).update({ name: 'Wobbleflux', status: 'live' });
  t.deepEqual(await searchIds('wobbleflux'), [], 'not fed yet');
  await os.feed.round();
  t.deepEqual(await searchIds('wobbleflux'), [id]);
  await db('listings').where({ id }).update({ name: 'Wibbleflux' });
  await os.feed.round();
  t.deepEqual(await searchIds('wobbleflux'), []);
  t.deepEqual(await searchIds('wibble'), [id]);
  await db('listings')
    .where({ id })
    .update({ status: 'removed' as ListingStatus });
  await os.feed.round();
  t.deepEqual(await searchIds('wibble'), []);
});

test.serial('a round that fails leaves its changes for the next, and an earlier round written late changes nothing', async (t) => {
  const db = env.services.db;
  await seedListings(db, 1, 'crash');
  const [id] = await db('listings').where({ slug: 'crash-1' }).pluck('id');
  await db('listings').where({ id }).update({ name: 'Quorblex', status: 'live', votes: 7 });
  const before = await db('search_feeds').where({ name: os.alias }).first();
  // A feeder whose OpenSearch is gone: its round fails and the cursor stays where it was.
  const broken = new OpenSearchFeed(db, openSearchClient({ url: 'http://127.0.0.1:9' }), os.alias);
  await t.throwsAsync(() => broken.round());
  const after = await db('search_feeds').where({ name: os.alias }).first();
  t.is(after!.from_xid, before!.from_xid);
  t.deepEqual(await searchIds('quorblex'), []);
  // The next feeder (another process, say) resumes from the cursor.
  await os.feed.round();
  t.deepEqual(await searchIds('quorblex'), [id]);

  // A feeder that stalled writes the listing as it read it then, with its earlier round's version.
  const stale = await listingDocuments(db, [id]);
  const staleRound = Number((await db('search_feeds').where({ name: os.alias }).first())!.round);
  await db('listings').where({ id }).update({ name: 'Quorblix' });
  await os.feed.round();
  await writeDocuments(os.client, (await aliasTarget(os.client, os.alias))!, [id], stale, staleRound);
  await os.client.indices.refresh({ index: os.alias });
  t.deepEqual(await searchIds('quorblex'), [], 'the stale write was refused');
  t.deepEqual(await searchIds('quorblix'), [id]);
});

test.serial('a reindex builds a new index while the old one answers, then the alias moves to it', async (t) => {
  const db = env.services.db;
  const first = await aliasTarget(os.client, os.alias);
  t.truthy(first);
  const { index, documents } = await os.feed.reindex();
  t.not(index, first);
  t.is(
    documents,
    await db('listings')
      .where({ status: 'live' })
      .count<{ count: string }[]>('* as count')
      .then((r) => Number(r[0]!.count)),
  );
  // Searches still read the old index, and a change made now reaches the new one.
  t.is(await aliasTarget(os.client, os.alias), first);
  await seedListings(db, 1, 'moved');
  const [id] = await db('listings').where({ slug: 'moved-1' }).pluck('id');
  await db('listings').where({ id }).update({ name: 'Plinkovar', status: 'live' });
  await os.feed.round();
  t.is(await aliasTarget(os.client, os.alias), index);
  t.deepEqual(await searchIds('plinkovar'), [id]);
  const old = await os.client.indices.exists({ index: first! });
  t.false(old.body, 'the old index is dropped');
  t.deepEqual(await differences(os.engine, postgres, site), [], 'the new index answers as PostgreSQL does');
});

test.serial('one worker feeds at a time, and another takes over when it stops', async (t) => {
  const db = env.services.db;
  const log = pino({ level: 'silent' });
  const databaseUrl = env.databaseUrl;
  const a = runSearchFeed(os.feed, { databaseUrl, log, lockRetryMs: 100 });
  const b = runSearchFeed(os.feed, { databaseUrl, log, lockRetryMs: 100 });
  try {
    const holders = async () =>
      Number((await db.raw(`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = 1936876392`)).rows[0].n);
    await eventually('a feeder holds the lock', async () => (await holders()) === 1);
    await seedListings(db, 1, 'worker');
    const [id] = await db('listings').where({ slug: 'worker-1' }).pluck('id');
    await db('listings').where({ id }).update({ name: 'Snorkelbrook', status: 'live' });
    await eventually('the running feeder wrote the listing', async () => (await searchIds('snorkelbrook')).includes(id));
    await a.stop();
    await db('listings').where({ id }).update({ name: 'Snorkelbright' });
    await eventually('the other feeder took over', async () => (await searchIds('snorkelbright')).includes(id));
    t.is(await holders(), 1);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});

test.serial('search:reindex builds a new index on the OpenSearch engine, and says why not on another', async (t) => {
  const refused = await adminInProcess(env, 'search:reindex');
  t.is(refused.code, 1);
  t.regex(refused.stderr, /SEARCH_ENGINE is memory/);
  const search = env.services.config.search;
  const config = {
    ...env.services.config,
    search: { ...search, engine: 'opensearch' as const, openSearch: { ...search.openSearch, url: testOpenSearchUrl(), alias: os.alias } },
  };
  const before = await aliasTarget(os.client, os.alias);
  const built = await adminInProcess({ services: { ...env.services, config } }, 'search:reindex');
  t.is(built.code, 0, built.stderr);
  t.regex(built.stdout, new RegExp(`built ${os.alias}-\\d+ with \\d+ listings`));
  await os.feed.round();
  const after = await aliasTarget(os.client, os.alias);
  t.not(after, before);
  t.true(built.stdout.includes(after!));
});

test.serial('a search answers from PostgreSQL while OpenSearch cannot: no index yet, or no node', async (t) => {
  const db = env.services.db;
  const query = { siteId: site, siteKey: 'main', baseUrl: '', q: 'cloud', page: 1, perPage: 20 };
  const expected = await postgres.search(query);
  const unbuilt = new OpenSearchSearch(db, os.client, { alias: `${os.alias}-never-built`, cacheTtlMs: 0 });
  t.deepEqual(await unbuilt.search(query), expected);
  t.is(unbuilt.answeredByPostgres, 1);
  const down = new OpenSearchSearch(db, openSearchClient({ url: 'http://127.0.0.1:9' }), { alias: os.alias, cacheTtlMs: 0 });
  t.deepEqual(await down.search(query), expected);
});
