import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { recordServer, stopIfOrphaned } from './orphans.ts';
import { waitUntilReady } from './wait-ready.ts';
import { stopChild } from './stop-child.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface OpenSearchNodeOptions {
  /** The node's home: its data and logs. */
  dir: string;
  port: number;
  /** The JVM's heap, e.g. `512m` (OPENSEARCH_HEAP). */
  heap?: string;
  /** Record the node beside its data, so that a later start stops it when this process was killed (npm start). */
  durable?: boolean;
  onLog?: (line: string) => void;
}

export interface RunningOpenSearch {
  url: string;
  /** The JVM's process id (benchmarks read its memory). */
  pid: number;
  stop(): Promise<void>;
}

/** Path of the node's launcher, built once into the user cache from Maven Central (opensearch/node.sh). */
export async function openSearchLauncher(): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', [path.join(ROOT, 'opensearch/node.sh')], { timeout: 600_000, maxBuffer: 1 << 20 });
  return stdout.trim().split('\n').at(-1)!;
}

const recordFile = (dir: string) => path.join(dir, 'node.pid.json');

/** Stops the node of this data directory that a killed start left running (it holds the port and the data); its pid, or null. */
export function stopOrphanedOpenSearch(dir: string): Promise<number | null> {
  return stopIfOrphaned(recordFile(dir), 20_000);
}

/** Starts one OpenSearch node on 127.0.0.1 and waits until it answers and its cluster is usable. */
export async function startOpenSearchNode(options: OpenSearchNodeOptions): Promise<RunningOpenSearch> {
  const launcher = await openSearchLauncher();
  await fs.mkdir(options.dir, { recursive: true });
  const child = spawn(launcher, [options.dir, String(options.port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, OPENSEARCH_HEAP: options.heap ?? process.env.OPENSEARCH_HEAP ?? '512m' },
  });
  const onLog = options.onLog ?? (() => {});
  child.stdout!.on('data', (c: Buffer) => onLog(c.toString()));
  child.stderr!.on('data', (c: Buffer) => onLog(c.toString()));
  const url = `http://127.0.0.1:${options.port}`;
  // Recorded at once: a start killed while the node comes up leaves it running as well.
  const forget =
    options.durable && child.pid
      ? await recordServer(recordFile(options.dir), { pid: child.pid, mark: options.dir, signal: 'SIGTERM' })
      : null;
  try {
    await waitForCluster(url, child);
  } catch (error) {
    await stopChild(child);
    await forget?.();
    throw error;
  }
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      await stopChild(child, 20_000);
      await forget?.();
    },
  };
}

function waitForCluster(url: string, child: ChildProcess, timeoutMs = 120_000): Promise<void> {
  const ready = async () =>
    (await fetch(`${url}/_cluster/health?wait_for_status=yellow&timeout=1s`, { signal: AbortSignal.timeout(2_000) })).ok;
  return waitUntilReady(
    child,
    ready,
    {
      exited: `The embedded OpenSearch node exited before it was ready on ${url}. To fix it, set OPENSEARCH_PORT to a free port, or OPENSEARCH_URL to use an OpenSearch that is already running (LOG_LEVEL=debug shows its log).`,
      timedOut: `OpenSearch did not answer on ${url} within ${timeoutMs} ms`,
    },
    timeoutMs,
  );
}
