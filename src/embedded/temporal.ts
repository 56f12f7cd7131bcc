import { spawn, execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { temporalClientSdk } from '../temporal/client-sdk.ts';
import { recordServer, stopIfOrphaned } from './orphans.ts';
import { SEARCH_ATTRIBUTES } from '../workflows/contracts/search-attributes.ts';
import { waitUntilReady } from './wait-ready.ts';
import { stopChild } from './stop-child.ts';

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

export interface TemporalDevServerOptions {
  port: number;
  uiPort: number | null;
  /** SQLite file for durable state; null keeps everything in memory (tests). */
  dbFile: string | null;
  namespaces: string[];
  /** `--dynamic-config-value` settings, as KEY → value (JSON-encoded on the command line). */
  dynamicConfig?: Record<string, string | number | boolean>;
  onLog?: (line: string) => void;
}

export interface RunningTemporal {
  address: string;
  uiUrl: string | null;
  stop(): Promise<void>;
}

/** Path of the Temporal CLI, built from Go modules into the user cache on first use. */
export async function temporalCliPath(): Promise<string> {
  const { stdout } = await execFileAsync('bash', [path.join(ROOT, 'temporal/build-cli.sh')], {
    maxBuffer: 1 << 20,
  });
  return stdout.trim().split('\n').at(-1)!;
}

/** Starts `temporal server start-dev` on 127.0.0.1 and waits until its frontend answers. */
export async function startTemporalDevServer(options: TemporalDevServerOptions): Promise<RunningTemporal> {
  const cli = await temporalCliPath();
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--log-level', 'warn'];
  if (options.uiPort === null) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort), '--ui-ip', '127.0.0.1');
  if (options.dbFile) {
    await fs.mkdir(path.dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile);
  }
  for (const ns of options.namespaces) args.push('--namespace', ns);
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${name}=${type}`);
  for (const [key, value] of Object.entries(options.dynamicConfig ?? {}))
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  const child = spawn(cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const onLog = options.onLog ?? (() => {});
  child.stdout!.on('data', (c: Buffer) => onLog(c.toString()));
  child.stderr!.on('data', (c: Buffer) => onLog(c.toString()));
  // Recorded at once: a start killed while the server comes up leaves it running as well.
  const recording =
    options.dbFile && child.pid
      ? recordServer(recordFile(options.dbFile), { pid: child.pid, mark: options.dbFile, signal: 'SIGTERM' })
      : null;
  const address = `127.0.0.1:${options.port}`;
  const [, forget] = await Promise.all([waitForFrontend(address, child), recording]);
  return {
    address,
    uiUrl: options.uiPort === null ? null : `http://localhost:${options.uiPort}`,
    stop: async () => {
      await stopChild(child);
      await forget?.();
    },
  };
}

/** Where a durable dev server is recorded for the next start: beside its SQLite file. */
const recordFile = (dbFile: string) => `${dbFile}.pid.json`;

/**
 * Stops the dev server of this SQLite file that a killed process left running (it holds the
 * ports and the file); the pid it stopped, or null.
 */
export function stopOrphanedTemporal(dbFile: string): Promise<number | null> {
  return stopIfOrphaned(recordFile(dbFile));
}

function waitForFrontend(address: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const { Connection } = temporalClientSdk();
  const ready = async () => {
    const connection = await Connection.connect({ address, connectTimeout: 1000 });
    await connection.workflowService.getSystemInfo({});
    await connection.close();
    return true;
  };
  return waitUntilReady(
    child,
    ready,
    {
      exited: `The Temporal dev server exited before it was ready on ${address}. To fix it, set TEMPORAL_PORT / TEMPORAL_UI_PORT to free ports or DATA_DIR to a writable directory, or TEMPORAL_ADDRESS to use a Temporal server that is already running (LOG_LEVEL=debug shows its log).`,
      timedOut: `temporal dev server did not answer on ${address} within ${timeoutMs} ms`,
    },
    timeoutMs,
  );
}
