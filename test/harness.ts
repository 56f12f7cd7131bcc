import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pgDriver from 'pg';
import { createDb, migrate } from '../src/db/knex.ts';
import { seed } from '../src/db/seed.ts';
import { startOpenSearchNode } from '../src/embedded/opensearch.ts';
import { startEmbeddedPostgres, type RunningPostgres } from '../src/embedded/postgres.ts';
import { startTemporalDevServer } from '../src/embedded/temporal.ts';
import { workflowBundle } from '../src/temporal/worker.ts';
import { namespaceFor } from './helpers/namespace.ts';

/**
 * Starts one real PostgreSQL, one Temporal dev server and one OpenSearch node on free ports, provisions Temporal's Java
 * test server for the time-skipping tests (temporal/test-server.sh), prepares a migrated
 * and seeded template database, then runs ava. Each test file clones the template into its own
 * database and uses its own Temporal namespace (namespaceFor), so files run in parallel.
 * What every file would otherwise redo is done once here: the workflow bundle (a file named by
 * TEST_WORKFLOW_BUNDLE, test/helpers/bundle.ts) and Node's compile cache (NODE_COMPILE_CACHE: each
 * test file is a process that loads the whole app's TypeScript).
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const TEMPLATE_DB = 'ld_template';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/**
 * The run's cluster is thrown away at the end: it need not wait for the disk at each commit
 * (PostgreSQL's settings for a disposable cluster). Nothing a test asserts depends on it.
 */
async function relaxDurability(url: string): Promise<void> {
  const client = new pgDriver.Client({ connectionString: url });
  await client.connect();
  try {
    for (const setting of ['fsync = off', 'synchronous_commit = off', 'full_page_writes = off'])
      await client.query(`ALTER SYSTEM SET ${setting}`);
    await client.query('SELECT pg_reload_conf()');
  } finally {
    await client.end();
  }
}

async function testFiles(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true });
  return entries.filter((f) => f.endsWith('.test.ts')).map((f) => path.join(dir, f));
}

async function run(): Promise<number> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'ld-test-'));
  await fs.chmod(tmp, 0o755);
  const [pgPort, temporalPort, openSearchPort] = [await freePort(), await freePort(), await freePort()];
  console.log(`[test] PostgreSQL on 127.0.0.1:${pgPort}, Temporal on 127.0.0.1:${temporalPort}, OpenSearch on 127.0.0.1:${openSearchPort}`);
  // Independent of each other, so started together: the template database, the Temporal dev
  // server, Temporal's Java test server for the time-skipping tests (temporal/test-server.sh builds
  // it once into the user cache), the workflow bundle for every worker of the run and the compile
  // cache (test/helpers/compile-cache.ts).
  const bundleFile = path.join(tmp, 'workflow-bundle.js');
  const compileCache = process.env.NODE_COMPILE_CACHE ?? path.join(tmp, 'compile-cache');
  const allFiles = testFiles(path.join(ROOT, 'test'));
  // The files this run gives ava, or every test file.
  const named = process.argv.slice(2).filter((arg) => arg.endsWith('.test.ts'));
  const runFiles = named.length > 0 ? Promise.resolve(named.map((f) => path.resolve(f))) : allFiles;
  const temporalStarting = allFiles.then((files) =>
    startTemporalDevServer({
      port: temporalPort,
      uiPort: null,
      dbFile: null,
      namespaces: files.map(namespaceFor),
      dynamicConfig: {
        // One partition per task queue instead of four (23 s less of the server's CPU in a run): one
        // in-memory server gains nothing from spreading a queue, and each partition is polled,
        // leased and forwarded on its own. Not for `npm start`: its durable queues keep their
        // tasks in the partitions they were written to.
        'matching.numTaskqueueReadPartitions': 1,
        'matching.numTaskqueueWritePartitions': 1,
        // Schedules on Temporal's CHASM scheduler, which runs inside the server, instead of a
        // scheduler workflow on a worker of each namespace: the run's 160 namespaces each kept such
        // a worker polling (2 s of the server's CPU a minute, 0.5 s without). The client API is the
        // same; the schedule tests create, describe, list and trigger through it.
        'worker.perNamespaceWorkerCount': 0,
        'history.enableCHASMSchedulerSentinels': true,
        'history.enableCHASMSchedulerCreation': true,
        'history.enableCHASMSchedulerRouting': true,
      },
    }),
  );
  const pgStarting = startEmbeddedPostgres({ dir: path.join(tmp, 'pg'), port: pgPort });
  // One OpenSearch node for the search engine's tests (opensearch/node.sh builds it once); each
  // file uses indices of its own.
  const openSearchStarting = startOpenSearchNode({ dir: path.join(tmp, 'opensearch'), port: openSearchPort, heap: '384m' });
  const [pg, temporal, template, testServer, bundle, warmed, openSearch] = await Promise.allSettled([
    pgStarting,
    temporalStarting,
    pgStarting.then(prepareTemplate),
    promisify(execFile)('bash', [path.join(ROOT, 'temporal/test-server.sh')], { timeout: 600_000 }).then(({ stdout }) => stdout.trim()),
    workflowBundle().then(({ code }) => fs.writeFile(bundleFile, code)),
    runFiles.then((files) =>
      promisify(execFile)(process.execPath, [path.join(ROOT, 'test/helpers/compile-cache.ts'), ...files], {
        env: { ...process.env, NODE_COMPILE_CACHE: compileCache },
      }),
    ),
    openSearchStarting,
  ]);
  try {
    for (const step of [pg, temporal, template, testServer, bundle, warmed, openSearch]) if (step.status === 'rejected') throw step.reason;
    const [pgUrl, temporalAddress] = [valueOf(pg)!.url('postgres'), valueOf(temporal)!.address];
    const args = [path.join(ROOT, 'node_modules/ava/entrypoints/cli.mjs'), ...process.argv.slice(2)];
    return await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, args, {
        stdio: 'inherit',
        cwd: ROOT,
        env: {
          ...process.env,
          TEST_PG_URL: pgUrl,
          TEST_TEMPLATE_DB: TEMPLATE_DB,
          TEST_TEMPORAL_ADDRESS: temporalAddress,
          TEST_TEMPORAL_TEST_SERVER: valueOf(testServer)!,
          TEST_OPENSEARCH_URL: valueOf(openSearch)!.url,
          TEST_WORKFLOW_BUNDLE: bundleFile,
          NODE_COMPILE_CACHE: compileCache,
          // Workflows run on the worker's own thread (the SDK's debug mode) instead of a worker
          // thread per task queue: every startWorkers would otherwise start six threads, each
          // loading the SDK and the bundle (about 2 s of CPU per test file that starts workers, and
          // per worker process restart). Same bundle, same sandbox (the SDK's reusable VM); only
          // the 5 s limit on one workflow activation is lifted.
          TEMPORAL_DEBUG: process.env.TEMPORAL_DEBUG ?? '1',
        },
      });
      child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  } finally {
    await Promise.all([valueOf(temporal)?.stop(), valueOf(pg)?.stop(), valueOf(openSearch)?.stop()]);
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

const valueOf = <T>(step: PromiseSettledResult<T>): T | null => (step.status === 'fulfilled' ? step.value : null);

/** The migrated and seeded template database that every test file clones. */
async function prepareTemplate(pg: RunningPostgres): Promise<void> {
  await relaxDurability(pg.url('postgres'));
  await pg.ensureDatabase(TEMPLATE_DB);
  const db = createDb(pg.url(TEMPLATE_DB), 1);
  await migrate(db);
  await seed(db);
  await db.destroy();
}

run().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
