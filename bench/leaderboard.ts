/**
 * `npm run bench:leaderboard`: get_community_leaderboard on 100,000 live listings of this week and
 * 1,000,000 votes (10,000 accounts × 100 listings, counters in step as castVote keeps them, some
 * votes voided), against a bare Koa handler in alternating rounds at 50 connections. Also the
 * same operation with its cache off, and a closed (final) week. Target: ≥ 50 % of the bare
 * handler's throughput.
 */
import Koa from 'koa';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import type { Db } from '../src/db/knex.ts';
import { freezeWeek } from '../src/domain/ranking/weekly-close.ts';
import { addWeeks, isoWeekLabel, isoWeekStart } from '../src/workflows/contracts/weeks.ts';
import { operations } from '../src/operations/index.ts';
import { createServices } from '../src/services.ts';
import { benchDatabase, compare, listen, printTable, runBench } from './harness.ts';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 100_000);
const ACCOUNTS = 10_000;
const VOTES_PER_ACCOUNT = 100;

/** 1M votes spread over the listings, the counters set from them, 1,000 of them voided. */
async function seedVotes(db: Db): Promise<void> {
  const started = Date.now();
  await db.raw(`INSERT INTO users (email, email_verified_at) SELECT 'bench-' || g || '@example.com', now() FROM generate_series(1, ?) g`, [
    ACCOUNTS,
  ]);
  // Account u votes for 100 distinct listings (k * 1009 < 100,000 for k < 100).
  await db.raw(
    `INSERT INTO votes (listing_id, user_id, created_at)
     SELECT 1 + ((u.id * 37 + k * 1009) % ?), u.id, now() - (k || ' seconds')::interval
     FROM users u, generate_series(0, ?) k WHERE u.email LIKE 'bench-%'`,
    [LISTINGS, VOTES_PER_ACCOUNT - 1],
  );
  await db.raw(
    `UPDATE listings l SET votes = c.n, week_votes = c.n FROM (SELECT listing_id, count(*)::int n FROM votes GROUP BY listing_id) c WHERE l.id = c.listing_id`,
  );
  await db.raw(`UPDATE listings SET votes = 0, week_votes = 0 WHERE id NOT IN (SELECT DISTINCT listing_id FROM votes)`);
  await db.raw(
    `INSERT INTO voided_votes (listing_id, user_id, voted_at, in_launch_week, reason)
     SELECT listing_id, user_id, created_at, true, 'bench fraud' FROM votes ORDER BY listing_id, user_id LIMIT 1000`,
  );
  await db.raw('ANALYZE');
  const [{ count }] = await db('votes').count({ count: '*' });
  console.log(`seeded ${count} votes of ${ACCOUNTS} accounts in ${Date.now() - started} ms`);
}

/** Last week's listings: 1,000 of the listings moved there and frozen, for the `final` state. */
async function closedWeek(db: Db): Promise<string> {
  const monday = addWeeks(isoWeekStart(new Date()), -1);
  await db.raw('UPDATE listings SET launch_week = ? WHERE id <= 1000', [monday]);
  const site = await db('sites').where({ key: 'main' }).first('id');
  await freezeWeek(db, site!.id, monday, new Date());
  return isoWeekLabel(monday);
}

async function main() {
  const database = await benchDatabase(LISTINGS);
  try {
    const env = { LOG_LEVEL: 'silent', PORT: '0', TEMPORAL_ADDRESS: '127.0.0.1:1', DATA_DIR: database.dataDir } as const;
    const endpoints = { databaseUrl: database.databaseUrl, temporalAddress: '127.0.0.1:1' };
    const services = createServices(loadConfig(env), endpoints);
    const uncached = createServices(loadConfig({ ...env, LEADERBOARD_CACHE_TTL_MS: '0' }), endpoints);
    await seedVotes(services.db);
    const week = await closedWeek(services.db);
    const app = await listen(createApp(services, operations).callback());
    const appUncached = await listen(createApp(uncached, operations).callback());
    const bare = new Koa();
    const body = { ok: true, items: [{ key: 'launch', price: 0 }] };
    bare.use((ctx) => {
      ctx.body = body;
    });
    const bareServer = await listen(bare.callback());

    const sample = await (await fetch(`${app.url}/api/v1/leaderboards/community-weekly`)).json();
    console.log(
      `leaderboard ${sample.week} (${sample.state}): ${sample.items.length} items, #1 ${sample.items[0]?.name} with ${sample.items[0]?.score}`,
    );
    const path = '/api/v1/leaderboards/community-weekly';
    const results = await compare([
      { name: 'bare Koa (constant JSON)', options: { url: `${bareServer.url}/` } },
      { name: 'get_community_leaderboard', options: { url: `${app.url}${path}` } },
      { name: `get_community_leaderboard ${week}`, options: { url: `${app.url}${path}?week=${week}` } },
      { name: 'leaderboard, cache off', options: { url: `${appUncached.url}${path}` } },
    ]);
    printTable(results);
    const ratio = results[1]!.rps / results[0]!.rps;
    console.log(`\nget_community_leaderboard ${(ratio * 100).toFixed(0)} % of bare — target ≥ 50 %: ${ratio >= 0.5 ? 'met' : 'MISSED'}`);
    for (const server of [app, appUncached, bareServer]) await server.close();
    await services.close();
    await uncached.close();
  } finally {
    await database.stop();
  }
}

runBench(main);
