import type { ListingStatus } from '../../src/domain/fields.ts';
import test, { type ExecutionContext } from 'ava';
import { MemorySearch } from '../../src/search/memory-engine.ts';
import { PostgresSearch } from '../../src/search/postgres-engine.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { featureListing } from '../helpers/orders.ts';
import { differences, seedListings } from '../helpers/search-parity.ts';

// The in-memory engine against the PostgreSQL one (the reference) on the same listings: every
// search, page (up to the first past the end) and change below must give the same answer from both.
let env: TestEnv;
let memory: MemorySearch;
let postgres: PostgresSearch;
/** A memory engine on its default limits: candidates evaluated one by one on these few listings. */
let evaluating: MemorySearch;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  memory = new MemorySearch(env.services.db);
  postgres = new PostgresSearch(env.services.db, { cacheTtlMs: 0 });
  evaluating = new MemorySearch(env.services.db);
  // Loaded before the first search: until then a memory engine answers from PostgreSQL.
  await Promise.all([memory.ready(), evaluating.ready()]);
});
test.after.always(() => env?.close());

/**
 * Every query's pages from the memory engine against `truth`: PostgreSQL unless the engine on its
 * default limits is named.
 */
async function compare(t: ExecutionContext, siteId: number, truth: MemorySearch | PostgresSearch = postgres) {
  t.deepEqual(
    await differences(memory, truth, siteId),
    [],
    `the memory engine answered differently from ${truth === postgres ? 'PostgreSQL' : 'its default limits'}`,
  );
}

test.serial('both engines give the same answers, before and after listings change', async (t) => {
  const db = env.services.db;
  await seedListings(db, 1_500, 'diff');
  const site = (await db('sites').orderBy('id').first('id'))!.id as number;
  const live = await db('listings').where({ site_id: site, status: 'live' }).orderBy('id').pluck('id');
  await featureListing(db, live[3]);
  await featureListing(db, live[40]);
  await compare(t, site);

  // Votes, words, status, deletion, placements and new listings, all seen by the next search.
  await db('listings').whereIn('id', live.slice(0, 50)).increment('votes', 5);
  await db('listings').where({ id: live[60] }).update({ name: 'Zorbix Analytics', headline: 'Rockets for clouds' });
  await db('listings')
    .where({ id: live[61] })
    .update({ status: 'removed' as ListingStatus });
  await db('listings').where({ id: live[62] }).update({ status: 'draft' });
  await db('listings').where({ id: live[63] }).delete();
  await db('listings').where({ site_id: site, status: 'draft' }).limit(5).update({ status: 'live' });
  await featureListing(db, live[80]);
  await seedListings(db, 200, 'late');
  await compare(t, site);

  const makers = (await db('sites').orderBy('id').offset(1).first('id'))!.id as number;
  await compare(t, makers);
});

for (const [name, limits] of [
  ['scanning bitsets a word at a time', { candidates: 3, window: 1, changed: 1_000_000, sliceMs: 8 }],
  ['laying the index out again after every change', { candidates: 3, window: 2, changed: 0, sliceMs: 0 }],
] as const) {
  // Against the engine on its default limits, which the test above holds to PostgreSQL's answers:
  // asking PostgreSQL again for the data these tests write cost 17 s of the database's CPU.
  test.serial(`${name} gives the same answers as evaluating candidates`, async (t) => {
    const db = env.services.db;
    memory.limits = limits;
    try {
      const site = (await db('sites').orderBy('id').first('id'))!.id as number;
      await compare(t, site, evaluating);
      // Written listings: evaluated on their own, or laid out with the rest.
      const live = await db('listings').where({ site_id: site, status: 'live' }).orderBy('id').pluck('id');
      await db('listings').whereIn('id', live.slice(100, 140)).increment('votes', 3);
      await db('listings')
        .where({ id: live[150] })
        .update({ name: `Quillon ${name.length}`, headline: 'Vellum for metal teams' });
      await db('listings')
        .where({ id: live[151] })
        .update({ status: 'removed' as ListingStatus });
      // Laid out in the background: the answers are the same while it is built and after.
      await memory.sync();
      await compare(t, site, evaluating);
      await memory.laidOut();
      await compare(t, site, evaluating);
    } finally {
      memory.limits = undefined;
    }
  });
}

test.serial('a listing is found at once after it is written, and gone at once after it is taken down', async (t) => {
  const db = env.services.db;
  const site = (await db('sites').orderBy('id').first('id'))!.id as number;
  const search = async (q: string) =>
    (await memory.search({ siteId: site, siteKey: 'main', baseUrl: '', q, page: 1, perPage: 20 })).items.map((i) => i.id);
  await seedListings(db, 1, 'fresh');
  const [id] = await db('listings').where({ slug: 'fresh-1' }).pluck('id');
  await db('listings').where({ id }).update({ name: 'Wobbleflux', status: 'live' });
  t.deepEqual(await search('wobbleflux'), [id]);
  await db('listings').where({ id }).update({ name: 'Wibbleflux' });
  t.deepEqual(await search('wobbleflux'), []);
  t.deepEqual(await search('wibble'), [id]);
  await db('listings')
    .where({ id })
    .update({ status: 'removed' as ListingStatus });
  t.deepEqual(await search('wibble'), []);
});

test.serial('a memory engine answers from PostgreSQL until its index has loaded, then from the index', async (t) => {
  const db = env.services.db;
  const site = (await db('sites').orderBy('id').first('id'))!.id as number;
  const starting = new MemorySearch(db);
  const query = { siteId: site, siteKey: 'main', baseUrl: '', q: 'cloud', page: 1, perPage: 20 };
  // Asked before anything loaded: the search starts the load and does not wait for it.
  const answering = starting.search(query);
  t.is(starting.size, 0);
  const first = await answering;
  t.deepEqual(first, await postgres.search(query));
  await starting.ready();
  t.true(starting.size > 0);
  t.deepEqual(await starting.search(query), first);
});
