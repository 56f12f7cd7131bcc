import test from 'ava';
import { pino } from 'pino';
import { createDb, type Db } from '../../../src/db/knex.ts';
import { createAppSecrets } from '../../../src/auth/secrets.ts';
import { createPageCounters, type PageCounterOptions } from '../../../src/domain/stats/page-counters.ts';
import { onShutdown } from '../../../src/lib/shutdown.ts';
import { createTestDatabase } from '../../helpers/env.ts';
import { eventually } from '../../helpers/eventually.ts';
import { insertLiveListing } from '../../helpers/listings.ts';

// The page counters' buffer: nothing is written per event; a batch goes out at N
// events, on the timer, and on close; counts of a listing deleted meanwhile are dropped without
// losing the rest; counting off writes nothing.

let db: Db;
const log = pino({ level: 'silent' });
const HOUR = 3_600_000;
test.before(async () => {
  db = createDb(await createTestDatabase(), 4);
});
test.after.always(async () => {
  await db?.destroy();
});

/** Counters of one api process (each with its own secrets cache, as processes have). */
const counting = (options: PageCounterOptions) => createPageCounters(db, createAppSecrets(db), log, options);

let clients = 0;
/** A new client address for each event, unless the test names one. */
const someone = () => `192.0.2.${++clients}`;

const slugOf = async (listingId: number): Promise<string> => (await db('listings').where({ id: listingId }).first('slug'))!.slug;

const stored = async (listingId: number) =>
  (await db('listing_hourly_counts')
    .where({ listing_id: listingId })
    .orderBy('referrer_host')
    .select('referrer_host', 'views', 'clicks')) as {
    referrer_host: string;
    views: number;
    clicks: number;
  }[];

test('a batch goes out at N events with one upsert that adds to the hour’s rows; close() writes the rest', async (t) => {
  const id = await insertLiveListing(db, { name: 'Buffered One' });
  const counters = counting({ flushMs: HOUR, maxEvents: 3 });
  counters.view(await slugOf(id), 'a.example', someone());
  counters.view(await slugOf(id), null, someone());
  t.deepEqual(await stored(id), [], 'nothing is written per event');
  counters.click(await slugOf(id), someone()); // the third event starts a flush
  await eventually('the batch at 3 events', async () => (await stored(id)).length === 2);
  t.deepEqual(await stored(id), [
    { referrer_host: '', views: 1, clicks: 1 },
    { referrer_host: 'a.example', views: 1, clicks: 0 },
  ]);
  counters.view(await slugOf(id), 'a.example', someone());
  counters.click(await slugOf(id), someone());
  await counters.close();
  t.deepEqual(await stored(id), [
    { referrer_host: '', views: 1, clicks: 2 },
    { referrer_host: 'a.example', views: 2, clicks: 0 },
  ]);
  const hours = await db('listing_hourly_counts').where({ listing_id: id }).distinct('hour');
  t.is(hours.length, 1);
  t.is((hours[0]!.hour as Date).getTime() % HOUR, 0, 'rows are whole UTC hours');
});

test('the timer writes what waits', async (t) => {
  const id = await insertLiveListing(db, { name: 'Timer Written' });
  const counters = counting({ flushMs: 50 });
  t.teardown(() => counters.close());
  counters.view(await slugOf(id), 'b.example', someone());
  await eventually('the timer’s flush', async () => (await stored(id)).length === 1);
  t.deepEqual(await stored(id), [{ referrer_host: 'b.example', views: 1, clicks: 0 }]);
});

test('a listing deleted meanwhile does not cost the others in its batch their counts', async (t) => {
  const [kept, gone] = [await insertLiveListing(db, { name: 'Batch Kept' }), await insertLiveListing(db, { name: 'Batch Gone' })];
  const counters = counting({ flushMs: HOUR });
  counters.view(await slugOf(gone), null, someone());
  counters.view(await slugOf(kept), 'b.example', someone());
  await db('listings').where({ id: gone }).delete();
  await counters.close();
  t.deepEqual(await stored(kept), [{ referrer_host: 'b.example', views: 1, clicks: 0 }]);
  t.deepEqual(await stored(gone), []);
});

test('counting off writes nothing', async (t) => {
  const id = await insertLiveListing(db, { name: 'Not Counted' });
  const counters = counting({ enabled: false, maxEvents: 1 });
  counters.view(await slugOf(id), 'c.example', someone());
  counters.click(await slugOf(id), someone());
  await counters.close();
  t.deepEqual(await stored(id), []);
});

test('on SIGTERM the buffer is flushed after the drain and before the pools close', async (t) => {
  const id = await insertLiveListing(db, { name: 'Flushed On Shutdown' });
  const counters = counting({ flushMs: HOUR });
  const order: string[] = [];
  const exit = process.exit;
  let exited: (code: number) => void;
  const exitCode = new Promise<number>((resolve) => (exited = resolve));
  process.exit = ((code: number) => exited(code)) as typeof process.exit;
  t.teardown(() => {
    process.exit = exit;
  });
  onShutdown(
    log,
    {
      drain: [
        {
          name: 'api',
          stop: async () => {
            counters.view(await slugOf(id), null, someone()); // a request that finishes while the api drains
            order.push('drained');
          },
        },
      ],
      flush: [
        {
          name: 'page counts',
          stop: async () => {
            await counters.flush();
            order.push('flushed');
          },
        },
      ],
      close: [{ name: 'services', stop: async () => void order.push(`closed with ${(await stored(id)).length} row`) }],
    },
    // Long: its last-resort exit timer (unref'd) must not outlive this test file's process.
    { graceMs: 600_000 },
  );
  process.emit('SIGTERM');
  t.is(await exitCode, 0);
  t.deepEqual(order, ['drained', 'flushed', 'closed with 1 row']);
  t.deepEqual(await stored(id), [{ referrer_host: '', views: 1, clicks: 0 }]);
});

test('a client counts once per listing and hour, in one buffer, across flushes and across processes', async (t) => {
  const id = await insertLiveListing(db, { name: 'Counted Once' });
  const slug = await slugOf(id);
  const [first, second] = [counting({ flushMs: HOUR }), counting({ flushMs: HOUR })];
  for (let i = 0; i < 40; i++) {
    first.view(slug, 'a.example', '198.51.100.7');
    first.click(slug, '198.51.100.7');
  }
  await first.flush();
  t.deepEqual(await stored(id), [
    { referrer_host: '', views: 0, clicks: 1 },
    { referrer_host: 'a.example', views: 1, clicks: 0 },
  ]);
  // The same client through another process, and again after the first flush: nothing more.
  second.view(slug, 'b.example', '198.51.100.7');
  first.view(slug, null, '198.51.100.7');
  await Promise.all([first.close(), second.close()]);
  t.deepEqual(await stored(id), [
    { referrer_host: '', views: 0, clicks: 1 },
    { referrer_host: 'a.example', views: 1, clicks: 0 },
  ]);
  // Another client counts.
  const third = counting({ flushMs: HOUR });
  third.view(slug, null, '198.51.100.8');
  await third.close();
  t.is(
    (await stored(id)).reduce((sum, r) => sum + r.views, 0),
    2,
  );
});

// Serial: it ages and purges every hash of the file's database, which would let the other tests count again.
test.serial('what is kept to count once holds no address: keyed hashes that the maintenance purges', async (t) => {
  const id = await insertLiveListing(db, { name: 'Hashed Visitors' });
  const counters = counting({ flushMs: HOUR });
  counters.view(await slugOf(id), null, '2001:db8::1');
  await counters.close();
  const rows = await db('page_count_seen').select('seen', 'hour');
  t.true(rows.length >= 1);
  for (const row of rows) {
    t.is(row.seen.length, 32, 'an HMAC-SHA256');
    t.false(row.seen.toString('latin1').includes('2001:db8'));
  }
  const { purgeBatch } = await import('../../../src/domain/maintenance/purge.ts');
  t.is(await purgeBatch(db, 'page_count_seen', 1000, new Date()), 0, 'this hour’s hashes stay');
  await db('page_count_seen').update({ hour: new Date(Date.now() - 3 * HOUR) });
  t.true((await purgeBatch(db, 'page_count_seen', 1000, new Date())) >= 1);
  t.deepEqual(await db('page_count_seen').select('seen'), []);
  await db('app_secrets')
    .where('name', 'like', 'page-count:%')
    .update({ created_at: new Date(Date.now() - 3 * 24 * HOUR) });
  t.true((await purgeBatch(db, 'page_count_keys', 1000, new Date())) >= 1);
});
