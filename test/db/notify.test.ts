import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { pino } from 'pino';
import { createDb, type Db } from '../../src/db/knex.ts';
import {
  announceChange,
  announceListingChange,
  CHANGES_CHANNEL,
  LISTENER_NAME,
  listenForChanges,
  type ChangeNotice,
} from '../../src/db/notify.ts';
import { createCaches, forgetNoticed } from '../../src/services.ts';
import type { SearchEngine } from '../../src/domain/listings/search-port.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createTestDatabase } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';

/**
 * Change notices (src/db/notify.ts): delivered at the commit of the write that announces them and
 * never after a rollback; a listener whose connection is terminated listens again and says so
 * (its process then forgets everything); what each notice makes a process forget.
 */

let databaseUrl: string;
let db: Db;
test.before(async () => {
  databaseUrl = await createTestDatabase();
  db = createDb(databaseUrl);
});
test.after.always(async () => {
  await db?.destroy();
});

const silent = pino({ level: 'silent' });

function listener(firstRetryMs = 50) {
  const notices: ChangeNotice[] = [];
  let listened = 0;
  const changes = listenForChanges({
    databaseUrl,
    log: silent,
    onNotice: (n) => notices.push(n),
    onListening: () => listened++,
    firstRetryMs,
  });
  return { changes, notices, listened: () => listened };
}

async function until(done: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(10);
  }
}

test.serial('a notice arrives at the commit of its transaction, never after a rollback; payloads not understood are dropped', async (t) => {
  const l = listener();
  t.teardown(() => l.changes.close());
  await until(() => l.changes.listening());
  t.is(l.listened(), 1);
  const id = await insertLiveListing(db, { name: 'Noticed Co', url: 'https://noticed.example/' });
  const { slug, site_id } = (await db('listings').where({ id }).first('slug', 'site_id'))!;

  await db.transaction(async (trx) => {
    await announceListingChange(trx, 'votes', [id]);
    await sleep(200);
    t.deepEqual(l.notices, [], 'not before the commit');
  });
  await until(() => l.notices.length === 1);
  t.deepEqual(l.notices[0], { site: site_id, what: 'votes', slug });

  await db
    .transaction(async (trx) => {
      await announceChange(trx, { site: site_id, what: 'site' });
      throw new Error('rolled back');
    })
    .catch(() => {});
  await db.raw('SELECT pg_notify(?, ?)', [CHANGES_CHANNEL, '{"what":"everything"}']);
  await announceChange(db, { site: null, what: 'api-key' });
  await until(() => l.notices.length === 2);
  t.deepEqual(l.notices[1], { site: null, what: 'api-key' });
});

test.serial('a terminated LISTEN connection is made again, and its process told to forget everything', async (t) => {
  const l = listener();
  t.teardown(() => l.changes.close());
  await until(() => l.changes.listening());
  const pidOf = async () =>
    (
      await db('pg_stat_activity')
        .where({ application_name: `${LISTENER_NAME} ${process.pid}` })
        .first('pid')
    )?.pid;
  const first = await pidOf();
  t.truthy(first);
  await db.raw('SELECT pg_terminate_backend(?)', [first!]);
  await until(() => l.listened() === 2);
  t.not(await pidOf(), first);
  await announceChange(db, { site: 1, what: 'site' });
  await until(() => l.notices.length === 1);
  t.deepEqual(l.notices[0], { site: 1, what: 'site' });
});

test('each notice forgets what the writing process forgets; a reconnection forgets everything', async (t) => {
  const caches = createCaches(loadConfig({ PAGE_CACHE_TTL_MS: '60000' }));
  let searchChanged = 0;
  const search = { changed: () => searchChanged++ } as unknown as SearchEngine;
  const page = { headers: {}, plain: Buffer.from('x'), gzip: Buffer.from('x'), br: Buffer.from('x') };
  const keys = ['1:home', '1:listing:a', '1:listing:b', '2:home', '2:listing:a'];
  const keep = async () => {
    caches.visitorPages.forget();
    for (const key of keys)
      await caches.visitorPages.get(
        key,
        async () => page,
        async () => page,
      );
  };
  const kept = () =>
    keys.filter(
      (key) =>
        caches.visitorPages.get(
          key,
          async () => null,
          async () => null,
        ) === page,
    );

  await keep();
  await caches.leaderboard.get('x', async () => ({}) as never);
  forgetNoticed(caches, search, { site: 1, what: 'votes', slug: 'A' });
  t.deepEqual(kept(), ['1:listing:b', '2:home', '2:listing:a'], "the listing's page and the pages that rank, on its site");
  t.is(caches.leaderboard.size, 1, 'a vote leaves the leaderboard answers to their second');

  await keep();
  forgetNoticed(caches, search, { site: 1, what: 'listing', slug: 'a' });
  t.deepEqual(kept(), ['1:listing:b', '2:home', '2:listing:a']);
  t.is(caches.leaderboard.size, 0);

  await keep();
  forgetNoticed(caches, search, { site: 2, what: 'listings' });
  t.deepEqual(kept(), ['1:home', '1:listing:a', '1:listing:b']);

  await caches.apiKeys.get('hash', async () => null);
  forgetNoticed(caches, search, { site: null, what: 'api-key' });
  t.is(caches.apiKeys.size, 0);

  await keep();
  await caches.sites.get('all', async () => []);
  forgetNoticed(caches, search, null);
  t.deepEqual(kept(), []);
  t.is(caches.sites.size, 0);
  t.is(searchChanged, 4);
});
