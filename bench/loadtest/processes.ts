/**
 * The load test's service as separate processes, so faults can hit one part: the API (`main.ts api`)
 * and a worker (test/helpers/worker-process.ts, on a workflow bundle made once, so a restart after
 * a kill takes no bundling). Their output goes to a log file, kept for reading after a run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { workflowBundle } from '../../src/temporal/worker.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(ROOT, 'src/main.ts');
const WORKER = path.join(ROOT, 'test/helpers/worker-process.ts');

export interface ServiceProcesses {
  /** Kills the worker with SIGKILL (no drain, no heartbeat) and starts a new one; resolves when it polls. */
  killWorker(): Promise<void>;
  /** Lines the API logged at level error or worse so far. */
  apiErrorLines(): string[];
  /** Times the API process died on its own (it is started again at once): each one is a bug. */
  apiCrashes(): number;
  logFile: string;
  stop(): Promise<void>;
}

/** Starts the API on `port` and a worker, both with `env`; resolves once both are ready. */
export async function startProcesses(dir: string, port: number, env: Record<string, string>): Promise<ServiceProcesses> {
  const bundleFile = path.join(dir, 'workflows.js');
  await fs.writeFile(bundleFile, (await workflowBundle()).code);
  const logFile = path.join(dir, 'services.log');
  const log = createWriteStream(logFile, { flags: 'a' });
  const errors: string[] = [];
  const childEnv = { ...process.env, ...env, PORT: String(port) };
  let stopping = false;
  let crashes = 0;
  const startApi = () => {
    const child = spawn(process.execPath, [MAIN, 'api'], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    pipe(child, log, 'api', errors);
    child.once('exit', (code, signal) => {
      if (stopping) return;
      crashes++;
      log.write(`[loadtest] the API exited (${code ?? signal}); starting it again\n`);
      api = startApi();
    });
    return child;
  };
  let api = startApi();
  const workerEnv = {
    ...childEnv,
    WORKER_DATABASE_URL: env.DATABASE_URL!,
    WORKER_TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS!,
    // What test/helpers/worker-process.ts reads the bundle from (without it the worker exits at start).
    TEST_WORKFLOW_BUNDLE: bundleFile,
  };
  const startWorker = async () => {
    const child = spawn(process.execPath, [WORKER], { env: workerEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    pipe(child, log, 'worker', []);
    await waitForLine(child, 'worker ready');
    return child;
  };
  let worker = await startWorker();
  await waitForHealth(`http://127.0.0.1:${port}/healthz`, api);
  return {
    logFile,
    async killWorker() {
      await stopChild(worker, 'SIGKILL');
      worker = await startWorker();
    },
    apiErrorLines: () => [...errors],
    apiCrashes: () => crashes,
    async stop() {
      stopping = true;
      await Promise.all([stopChild(api, 'SIGTERM'), stopChild(worker, 'SIGTERM')]);
      await new Promise((resolve) => log.end(resolve));
    },
  };
}

/** Copies a child's output into the log, each line tagged; keeps the API's error lines (pino level ≥ 50). */
export function pipe(child: ChildProcess, log: WriteStream, tag: string, errors: string[]): void {
  let rest = '';
  const onData = (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      log.write(`[${tag} ${child.pid}] ${line}\n`);
      if (/"level":\s*(5\d|60)/.test(line)) errors.push(line);
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
}

export function waitForLine(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => c.toString().includes(text) && resolve());
    child.once('exit', (code, signal) => reject(new Error(`process exited (${code ?? signal}) before "${text}"`)));
  });
}

export async function waitForHealth(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode} before it answered`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the API did not answer ${url} within ${timeoutMs} ms`);
}

export function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}
