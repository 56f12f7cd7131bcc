/**
 * `npm run bench:votes`: 1,000 signed-in accounts with confirmed emails vote through the web form
 * (session cookie + CSRF token, POST /listings/{slug}/vote → 303), against a real PostgreSQL:
 * first all 1,000 at once on one listing (1,000 connections), then each account on 10 more
 * listings at 50 connections (10,000 votes), then on 2 more at 10 connections. Checks that every count is exact and prints the
 * latency of a vote. Target: p99 of a vote < 50 ms (at 50 connections).
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createApp } from '../src/app.ts';
import { createSession } from '../src/auth/sessions.ts';
import { loadConfig } from '../src/config/config.ts';
import type { Db } from '../src/db/knex.ts';
import { operations } from '../src/operations/index.ts';
import { createServices } from '../src/services.ts';
import { SESSION_COOKIE } from '../src/web/session.ts';
import { benchDatabase, listen, runBench } from './harness.ts';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1_000);
const STEADY_LISTINGS = 10;
const STEADY_CONNECTIONS = 50;
/** A lighter run: latency when votes do not queue behind 50 others. */
const LIGHT_LISTINGS = 2;
const LIGHT_CONNECTIONS = 10;

interface Voter {
  cookie: string;
  csrf: string;
}

interface VoteRun {
  name: string;
  votes: number;
  connections: number;
  seconds: number;
  p50: number;
  p99: number;
  max: number;
  /** CPU of this process (app + load generator thread) per vote, in ms: what a vote costs regardless of the machine's load. */
  cpuMsPerVote: number;
}

/** Accounts with confirmed emails, each signed in; the CSRF token comes from a page, as a browser gets it. */
async function signedInVoters(db: Db, appUrl: string, slug: string): Promise<Voter[]> {
  const users: { id: number }[] = await db('users')
    .insert(Array.from({ length: ACCOUNTS }, (_, i) => ({ email: `bench-voter-${i}@example.com`, email_verified_at: db.fn.now() })))
    .returning('id');
  const voters: Voter[] = [];
  for (let i = 0; i < users.length; i += 20) {
    voters.push(
      ...(await Promise.all(
        users.slice(i, i + 20).map(async (u) => {
          const cookie = `${SESSION_COOKIE}=${(await createSession(db, u.id)).id}`;
          const page = await (await fetch(`${appUrl}/listings/${slug}`, { headers: { cookie } })).text();
          const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
          if (!csrf) throw new Error('no CSRF token on the listing page');
          return { cookie, csrf };
        }),
      )),
    );
  }
  return voters;
}

/** Sends each prepared vote exactly once at `connections` connections; every answer must be a 303. */
async function voteRun(
  name: string,
  url: string,
  votes: { path: string; cookie: string; body: string }[],
  connections: number,
): Promise<VoteRun> {
  process.env.BENCH_VOTES = JSON.stringify(votes);
  const cpu = process.cpuUsage();
  const r = await autocannon({
    url,
    connections,
    amount: votes.length,
    workers: 1,
    // A burst queues behind the listing's row lock; measure it rather than give up after 10 s.
    timeout: 120,
    requests: [{ setupRequest: fileURLToPath(new URL('./vote-request.cjs', import.meta.url)) as never }],
  });
  if (r['3xx'] !== votes.length || r.errors || r.timeouts) {
    throw new Error(`${name}: ${r['3xx']} redirects of ${votes.length}, ${r['4xx']} 4xx, ${r['5xx']} 5xx, ${r.errors} errors`);
  }
  const used = process.cpuUsage(cpu);
  const cpuMsPerVote = (used.user + used.system) / 1000 / votes.length;
  return {
    name,
    votes: votes.length,
    connections,
    seconds: r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    max: r.latency.max,
    cpuMsPerVote,
  };
}

async function exactCounts(db: Db, ids: number[]): Promise<void> {
  const rows: { id: number; votes: number; week_votes: number; stored: number }[] = await db('listings as l')
    .whereIn('l.id', ids)
    .select('l.id', 'l.votes', 'l.week_votes', db.raw('(SELECT count(*)::int FROM votes v WHERE v.listing_id = l.id) AS stored'));
  const wrong = rows.filter((r) => r.votes !== ACCOUNTS || r.week_votes !== ACCOUNTS || r.stored !== ACCOUNTS);
  if (wrong.length > 0 || rows.length !== ids.length) throw new Error(`counts not exact: ${JSON.stringify(wrong)}`);
  console.log(`exact: ${ids.length} listing(s) × ${ACCOUNTS} votes (listings.votes, week_votes and vote rows agree)`);
}

async function main() {
  const database = await benchDatabase(1 + STEADY_LISTINGS + LIGHT_LISTINGS);
  try {
    const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', TEMPORAL_ADDRESS: '127.0.0.1:1', DATA_DIR: database.dataDir });
    const services = createServices(config, { databaseUrl: database.databaseUrl, temporalAddress: '127.0.0.1:1' });
    const app = await listen(createApp(services, operations).callback());
    const db = services.db;
    // The seeded listings carry made-up counts without vote rows; these start from none.
    await db('listings').update({ votes: 0, week_votes: 0 });
    const listings: { id: number; slug: string }[] = await db('listings').orderBy('id').select('id', 'slug');
    const voters = await signedInVoters(db, app.url, listings[0]!.slug);
    const vote = (v: Voter, slug: string) => ({
      path: `/listings/${slug}/vote`,
      cookie: v.cookie,
      body: `_csrf=${encodeURIComponent(v.csrf)}`,
    });

    const burst = await voteRun(
      'burst: every account at once, one listing',
      app.url,
      voters.map((v) => vote(v, listings[0]!.slug)),
      ACCOUNTS,
    );
    await exactCounts(db, [listings[0]!.id]);
    const others = listings.slice(1, 1 + STEADY_LISTINGS);
    // Account-major order: at any moment the 50 connections vote for different listings and accounts.
    const steadyVotes = voters.flatMap((v) => others.map((l) => vote(v, l.slug)));
    const steady = await voteRun(`steady: ${others.length} listings`, app.url, steadyVotes, STEADY_CONNECTIONS);
    await exactCounts(
      db,
      others.map((l) => l.id),
    );
    const light = listings.slice(1 + STEADY_LISTINGS);
    const lightVotes = voters.flatMap((v) => light.map((l) => vote(v, l.slug)));
    const lighter = await voteRun(`light: ${light.length} listings`, app.url, lightVotes, LIGHT_CONNECTIONS);
    await exactCounts(
      db,
      light.map((l) => l.id),
    );

    console.log(
      `\nvotes through POST /listings/{slug}/vote, node ${process.version}, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${os.cpus().length} cores`,
    );
    console.log('run                                          votes  conns  votes/s   p50 ms  p99 ms  max ms  node CPU ms/vote');
    for (const r of [burst, steady, lighter]) {
      console.log(
        `${r.name.padEnd(44)} ${String(r.votes).padStart(6)} ${String(r.connections).padStart(6)} ${(r.votes / r.seconds).toFixed(0).padStart(8)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(7)} ${String(r.max).padStart(7)} ${r.cpuMsPerVote.toFixed(2).padStart(17)}`,
      );
    }
    console.log(
      `\np99 of a vote at ${STEADY_CONNECTIONS} connections ${steady.p99} ms — target < 50 ms: ${steady.p99 < 50 ? 'met' : 'MISSED'}`,
    );
    console.log(`p99 of a vote at ${LIGHT_CONNECTIONS} connections ${lighter.p99} ms`);
    await app.close();
    await services.close();
  } finally {
    await database.stop();
  }
}

runBench(main);
