/**
 * `npm run loadtest -- --mix launch-day`: the launch-day mix (bench/loadtest/launch-day.ts) against
 * two api processes and two workers on one PostgreSQL and one Temporal dev server, no faults.
 * Prints p50/p99 and errors by status per kind, each process's resident memory before and after
 * the traffic, then reconciles: votes stored per launch against the votes and unvotes accepted,
 * the counters against the stored votes, comments, edits, checkouts and their fulfilment.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.ts';
import { createDb } from '../../src/db/knex.ts';
import { startTemporalDevServer } from '../../src/embedded/temporal.ts';
import { benchDatabase, freePort } from '../harness.ts';
import { startCluster, type Cluster } from './cluster.ts';
import { prepareFixtures, type Fixtures } from './fixtures.ts';
import { LAUNCH_MIX, runLaunchDay } from './launch-day.ts';
import { prepareLaunchDay, type LaunchFixtures } from './launch-fixtures.ts';
import { launchChecks } from './launch-reconcile.ts';
import { reconcile, settle } from './reconcile.ts';
import { printChecks, printTraffic } from './report.ts';

const NAMESPACE = 'loadtest';
const LISTINGS = 5000;
const ACCOUNTS = 20;
const OWNED_PER_ACCOUNT = 50;
const COUNTS = { first: ACCOUNTS * OWNED_PER_ACCOUNT + 1, launches: 40, voters: 250, commenters: 60 };

/** Runs the mix; resolves with the names of the failed checks. */
export async function launchDay(rate: number, durationMs: number, settleMs: number): Promise<string[]> {
  const logDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ld-loadtest-'));
  const database = await benchDatabase(LISTINGS);
  const temporal = await startTemporalDevServer({ port: await freePort(), uiPort: null, dbFile: null, namespaces: [NAMESPACE] });
  const db = createDb(database.databaseUrl, 4);
  let fixtures: Fixtures | undefined;
  let cluster: Cluster | undefined;
  try {
    fixtures = await prepareFixtures(
      db,
      { accounts: ACCOUNTS, ownedPerAccount: OWNED_PER_ACCOUNT, listings: LISTINGS },
      loadConfig({}).orders.test.webhookSecret,
    );
    const ports = [await freePort(), await freePort()];
    cluster = await startCluster(logDir, ports, 2, serviceEnv(database.databaseUrl, temporal.address));
    const launch = await prepareLaunchDay(db, cluster.apis[0]!.baseUrl, COUNTS);
    const traffic = await measure(cluster, fixtures, launch, rate, durationMs);
    const settled = await settle(db, traffic.accepted, settleMs);
    console.log(`\nsettled in ${(settled.ms / 1000).toFixed(0)} s${settled.left ? ` (gave up with ${settled.left} still open)` : ''}`);
    const checks = [
      ...(await launchChecks(
        db,
        launch.launches.map((l) => l.id),
        traffic.launch,
      )),
      ...(await reconcile(db, traffic.accepted, { address: temporal.address, namespace: NAMESPACE })),
    ];
    const exits = cluster.exits();
    checks.push({ name: 'no api or worker process died', ok: exits.length === 0, detail: exits.join('; ') || '4 of 4 ran throughout' });
    printChecks(checks);
    console.log(`\napi error log lines: ${cluster.apiErrorLines().length} (in ${cluster.logFile})`);
    return checks.filter((c) => !c.ok).map((c) => c.name);
  } finally {
    await db.destroy();
    await cluster?.stop();
    await fixtures?.close();
    await temporal.stop();
    await database.stop();
  }
}

/** The traffic, then its latencies, errors and the processes' memory. */
async function measure(cluster: Cluster, fixtures: Fixtures, launch: LaunchFixtures, rate: number, durationMs: number) {
  const samples = [await sample(cluster, 0)];
  const origin = performance.now();
  // Between start and end too: whether a process's memory levels off (caches filled) or keeps growing.
  const sampler = setInterval(
    () => void sample(cluster, performance.now() - origin).then((s) => samples.push(s)),
    Math.max(10_000, durationMs / 10),
  );
  console.log(
    `launch day: ${rate} req/s for ${durationMs / 1000} s over ${cluster.apis.map((a) => `${a.name} ${a.baseUrl}`).join(' and ')}, ` +
      `2 workers; ${launch.launches.length} launches, ${launch.voters.length} voters, ${launch.commenters.length} commenters; ` +
      `service logs in ${cluster.logFile}`,
  );
  const traffic = await runLaunchDay(
    cluster.apis.map((a) => a.baseUrl),
    fixtures,
    launch,
    rate,
    durationMs,
  );
  clearInterval(sampler);
  samples.push(await sample(cluster, performance.now() - origin));
  printTraffic(
    traffic.outcomes,
    durationMs / 1000,
    traffic.seconds,
    [],
    LAUNCH_MIX.map(([kind]) => kind),
  );
  printMemory(samples);
  return traffic;
}

/** Quotas a launch day's crowd from one loopback address would hit are out of the way; every process logs warnings only. */
function serviceEnv(databaseUrl: string, temporalAddress: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_NAMESPACE: NAMESPACE,
    LOG_LEVEL: 'warn',
    COMMENTS_PER_ACCOUNT_PER_HOUR: '1000000',
    COMMENTS_PER_NETWORK_PER_HOUR: '1000000',
  };
}

/** Each process's VmRSS and the machine's 1-minute load average (others share the machine), `ms` into the traffic. */
type Sample = { ms: number; rss: Awaited<ReturnType<Cluster['memory']>>; load: number };

async function sample(cluster: Cluster, ms: number): Promise<Sample> {
  return { ms, rss: await cluster.memory(), load: os.loadavg()[0]! };
}

function printMemory(samples: Sample[]): void {
  const cell = (text: string) => text.padStart(6);
  console.log(`\nresident memory (VmRSS, MB) at s: ${samples.map((s) => cell((s.ms / 1000).toFixed(0))).join('')}`);
  for (const [i, p] of samples[0]!.rss.entries()) {
    const mb = samples.map((s) => s.rss[i]!.kb).map((kb) => cell(kb === null ? 'gone' : (kb / 1024).toFixed(0)));
    console.log(`  ${`${p.name} (pid ${p.pid})`.padEnd(31)} ${mb.join('')}`);
  }
  console.log(`  ${`load average, ${os.cpus().length} cores`.padEnd(31)} ${samples.map((s) => cell(s.load.toFixed(1))).join('')}`);
}
