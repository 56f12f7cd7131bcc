import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestEnv } from './env.ts';

const WORKER = path.resolve(import.meta.dirname, 'worker-process.ts');

/** Kills a worker process at once (SIGKILL: no shutdown, as a crash), resolving once it is gone. */
export const killWorker = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

/**
 * Worker processes of a test env, for tests that kill them (helpers/worker-process.ts in a child):
 * they share the run's workflow bundle file, so a restart takes no bundling; `close` kills the one
 * running now, whatever happened, and removes the data directory.
 */
export async function workerProcesses(env: TestEnv, vars: Record<string, string> = {}) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ld-workers-'));
  let current: ChildProcess | null = null;
  return {
    /** Starts a worker process and resolves once it polls. */
    start(): Promise<ChildProcess> {
      const child = spawn(process.execPath, [WORKER], {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: {
          ...process.env,
          WORKER_DATABASE_URL: env.databaseUrl,
          WORKER_TEMPORAL_ADDRESS: env.temporalAddress,
          TEMPORAL_NAMESPACE: env.namespace,
          BASE_URL: env.baseUrl,
          DATA_DIR: dir,
          LOG_LEVEL: 'silent',
          ...vars,
        },
      });
      current = child;
      return new Promise((resolve, reject) => {
        child.stdout!.on('data', (c: Buffer) => c.toString().includes('worker ready') && resolve(child));
        child.once('exit', (code) => reject(new Error(`worker exited with ${code} before it was ready`)));
      });
    },
    async close() {
      if (current) await killWorker(current);
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
