/**
 * `npm run loadtest [-- --duration 600 --rate 200]`: mixed traffic at a fixed rate
 * (searches, listing pages, quotes, edits, checkouts paid with the test provider's signed webhook,
 * drafts from a loopback website, DNS claims) against the API and a worker running as processes of
 * their own, while PostgreSQL is restarted once and the worker is killed (SIGKILL) three times.
 * Prints requests, errors by status, p50/p99, then a reconciliation against the database and
 * Temporal; exits non-zero when the reconciliation fails or the API process died.
 *
 * `--mix launch-day` runs the launch-day mix instead (bench/loadtest/launch-day-run.ts): two api
 * processes and two workers, visitors, voters, commenters, owners, MCP agents and checkouts, no
 * faults; 75 req/s unless `--rate` says otherwise.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/config.ts';
import { createDb } from '../src/db/knex.ts';
import { startTemporalDevServer } from '../src/embedded/temporal.ts';
import { benchDatabase, freePort, runBench, type BenchDatabase } from './harness.ts';
import { prepareFixtures, type Fixtures } from './loadtest/fixtures.ts';
import { startProcesses, type ServiceProcesses } from './loadtest/processes.ts';
import { reconcile, settle } from './loadtest/reconcile.ts';
import { printChecks, printTraffic, type FaultWindow } from './loadtest/report.ts';
import { MIX, runTraffic } from './loadtest/traffic.ts';
import { launchDay } from './loadtest/launch-day-run.ts';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '600' },
    mix: { type: 'string', default: 'faults' },
    rate: { type: 'string' },
    settle: { type: 'string', default: '300' },
    'pg-down': { type: 'string', default: '5' },
  },
});
const DURATION_MS = Number(args.duration) * 1000;
const LAUNCH_DAY = args.mix === 'launch-day';
const RATE = Number(args.rate ?? (LAUNCH_DAY ? 75 : 200));
const NAMESPACE = 'loadtest';
const ACCOUNTS = 20;
const OWNED_PER_ACCOUNT = 50;

async function main() {
  if (!(DURATION_MS > 0 && RATE > 0)) throw new Error('--duration and --rate must be positive numbers');
  if (!['faults', 'launch-day'].includes(args.mix)) throw new Error('--mix is faults (the default) or launch-day');
  if (LAUNCH_DAY) {
    const failed = await launchDay(RATE, DURATION_MS, Number(args.settle) * 1000);
    if (failed.length) throw new Error(`reconciliation failed: ${failed.join('; ')}`);
    return;
  }
  const claimShare = MIX.find(([kind]) => kind === 'claim')![1] / 100;
  const claims = Math.ceil((DURATION_MS / 1000) * RATE * claimShare * 1.2);
  const listings = Math.max(5000, ACCOUNTS * OWNED_PER_ACCOUNT + claims);
  const logDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ld-loadtest-'));
  const database = await benchDatabase(listings);
  const temporal = await startTemporalDevServer({ port: await freePort(), uiPort: null, dbFile: null, namespaces: [NAMESPACE] });
  let fixtures: Fixtures | undefined;
  let processes: ServiceProcesses | undefined;
  const failed: string[] = [];
  try {
    const port = await freePort();
    const env = { DATABASE_URL: database.databaseUrl, TEMPORAL_ADDRESS: temporal.address, TEMPORAL_NAMESPACE: NAMESPACE };
    const seeding = createDb(database.databaseUrl, 2);
    const counts = { accounts: ACCOUNTS, ownedPerAccount: OWNED_PER_ACCOUNT, listings };
    fixtures = await prepareFixtures(seeding, counts, loadConfig({}).orders.test.webhookSecret);
    await seeding.destroy();
    processes = await startProcesses(logDir, port, serviceEnv(env, port, logDir, fixtures));
    console.log(`load: ${RATE} req/s for ${DURATION_MS / 1000} s on ${listings} listings; service logs in ${processes.logFile}`);
    const [traffic, faults] = await Promise.all([
      runTraffic(`http://127.0.0.1:${port}`, fixtures, RATE, DURATION_MS),
      injectFaults(processes, database, DURATION_MS),
    ]);
    printTraffic(traffic.outcomes, DURATION_MS / 1000, traffic.seconds, faults);
    const db = createDb(database.databaseUrl, 2);
    const settled = await settle(db, traffic.accepted, Number(args.settle) * 1000);
    console.log(`\nsettled in ${(settled.ms / 1000).toFixed(0)} s${settled.left ? ` (gave up with ${settled.left} still open)` : ''}`);
    const checks = await reconcile(db, traffic.accepted, { address: temporal.address, namespace: NAMESPACE });
    await db.destroy();
    const crashes = processes.apiCrashes();
    checks.push({ name: 'the API process never died', ok: crashes === 0, detail: `${crashes} exits` });
    printChecks(checks);
    console.log(`\nAPI error log lines: ${processes.apiErrorLines().length} (in ${processes.logFile})`);
    failed.push(...checks.filter((c) => !c.ok).map((c) => c.name));
  } finally {
    await processes?.stop();
    await fixtures?.close();
    await temporal.stop();
    await database.stop();
  }
  // runBench exits 1 on an error (and 0 otherwise, whatever process.exitCode says).
  if (failed.length) throw new Error(`reconciliation failed: ${failed.join('; ')}`);
}

/** What the API and the worker run with: loopback crawling and DNS, quotas out of the way, claims checked every 5 s. */
function serviceEnv(env: Record<string, string>, port: number, dataDir: string, fixtures: Fixtures): Record<string, string> {
  return {
    ...env,
    BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    CRAWL_ALLOW_PRIVATE_NETWORKS: 'true',
    DRAFTS_MAX_IN_FLIGHT: '1000000',
    DRAFTS_MAX_PER_HOUR: '1000000',
    CLAIM_DNS_SERVERS: fixtures.dns.server,
    CLAIM_CHECK_SCHEDULE: '5s/1h',
  };
}

/** The worker killed at 20 %, 50 % and 80 % of the run, PostgreSQL restarted at 35 %. */
async function injectFaults(processes: ServiceProcesses, database: BenchDatabase, durationMs: number): Promise<FaultWindow[]> {
  const started = performance.now();
  const now = () => performance.now() - started;
  const until = (fraction: number) => new Promise((r) => setTimeout(r, Math.max(0, fraction * durationMs - now())));
  const windows: FaultWindow[] = [];
  const timed = async (what: string, fault: () => Promise<void>) => {
    const from = now();
    await fault();
    windows.push({ what, from, to: now() });
  };
  let kills = 0;
  const killWorker = () => timed(`worker SIGKILL #${++kills} → ready again`, () => processes.killWorker());
  await until(0.2);
  await killWorker();
  await until(0.35);
  await timed('PostgreSQL stopped → started again', () => database.restart(Number(args['pg-down']) * 1000));
  await until(0.5);
  await killWorker();
  await until(0.8);
  await killWorker();
  return windows;
}

runBench(main);
