/**
 * The launch-day mix's service: two `main.ts api` processes and two workers, each an OS process of
 * its own, on one PostgreSQL and one Temporal, as a deployment with two machines of each runs.
 * The api processes agree through the change notices (src/db/notify.ts); each has its own
 * DATA_DIR. Output goes to one log file, each line tagged with the process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { workflowBundle } from '../../src/temporal/worker.ts';
import { pipe, stopChild, waitForHealth, waitForLine } from './processes.ts';
import { rssKb } from './memory.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(ROOT, 'src/main.ts');
const WORKER = path.join(ROOT, 'test/helpers/worker-process.ts');

export interface ClusterProcess {
  name: string;
  child: ChildProcess;
}

export interface Cluster {
  apis: { name: string; baseUrl: string }[];
  processes: ClusterProcess[];
  /** VmRSS of each process now, kB (null: it has exited). */
  memory(): Promise<{ name: string; pid: number; kb: number | null }[]>;
  /** Processes that exited while the traffic ran: each one is a bug. */
  exits(): string[];
  apiErrorLines(): string[];
  logFile: string;
  stop(): Promise<void>;
}

/** Starts `apis` api processes on `ports` and `workers` workers with `env`; resolves once all are ready. */
export async function startCluster(dir: string, ports: number[], workers: number, env: Record<string, string>): Promise<Cluster> {
  const bundleFile = path.join(dir, 'workflows.js');
  await fs.writeFile(bundleFile, (await workflowBundle()).code);
  const logFile = path.join(dir, 'services.log');
  const log = createWriteStream(logFile, { flags: 'a' });
  const errors: string[] = [];
  const exits: string[] = [];
  let stopping = false;
  const processes: ClusterProcess[] = [];
  const watch = (name: string, child: ChildProcess) => {
    processes.push({ name, child });
    child.once('exit', (code, signal) => {
      if (!stopping) exits.push(`${name} (pid ${child.pid}) exited with ${code ?? signal}`);
    });
  };
  const apis = await Promise.all(
    ports.map(async (port, i) => {
      const name = `api-${String.fromCharCode(65 + i)}`;
      const dataDir = path.join(dir, name);
      await fs.mkdir(dataDir, { recursive: true });
      const baseUrl = `http://127.0.0.1:${port}`;
      const childEnv = { ...process.env, ...env, PORT: String(port), BASE_URL: baseUrl, DATA_DIR: dataDir };
      const child = spawn(process.execPath, [MAIN, 'api'], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      pipe(child, log, name, errors);
      watch(name, child);
      return { name, baseUrl, child };
    }),
  );
  const workerEnv = {
    ...process.env,
    ...env,
    WORKER_DATABASE_URL: env.DATABASE_URL!,
    WORKER_TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS!,
    TEST_WORKFLOW_BUNDLE: bundleFile,
  };
  for (let i = 0; i < workers; i++) {
    const name = `worker-${i + 1}`;
    const child = spawn(process.execPath, [WORKER], { env: workerEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    pipe(child, log, name, []);
    watch(name, child);
    await waitForLine(child, 'worker ready');
  }
  await Promise.all(apis.map((a) => waitForHealth(`${a.baseUrl}/healthz`, a.child)));
  return {
    apis: apis.map(({ name, baseUrl }) => ({ name, baseUrl })),
    processes,
    memory: () => Promise.all(processes.map(async (p) => ({ name: p.name, pid: p.child.pid!, kb: await rssKb(p.child.pid!) }))),
    exits: () => [...exits],
    apiErrorLines: () => [...errors],
    logFile,
    async stop() {
      stopping = true;
      await Promise.all(processes.map((p) => stopChild(p.child, 'SIGTERM')));
      await new Promise((resolve) => log.end(resolve));
    },
  };
}
