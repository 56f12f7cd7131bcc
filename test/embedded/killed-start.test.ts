import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { eventually } from '../helpers/eventually.ts';
import pg from 'pg';
import { processInfo } from '../../src/embedded/orphans.ts';
import { temporalClientSdk } from '../../src/temporal/client-sdk.ts';
import { freePort } from '../helpers/env.ts';

/** A `npm start` killed hard (SIGKILL, the OOM killer) leaves its PostgreSQL and Temporal running; the next start stops them and comes up. */

const STACK = path.resolve(import.meta.dirname, '../helpers/embedded-stack-process.ts');

interface Stack {
  child: ChildProcess;
  endpoints: { databaseUrl: string; temporalAddress: string };
}

/** The embedded stack in a process of its own; resolves once it printed its endpoints. */
function startStack(vars: Record<string, string>): Promise<Stack> {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'silent', ...vars };
  const child = spawn(process.execPath, [STACK], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      stdout += c;
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child, endpoints: JSON.parse(line) });
    });
    child.once('exit', (code) => reject(new Error(`the stack exited with ${code} before it was up: ${stderr}`)));
  });
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', resolve));

/** The pids of every live process whose command line names this directory. */
async function processesOf(dir: string): Promise<number[]> {
  const pids = (await fs.readdir('/proc').catch(() => [] as string[])).filter((p) => /^\d+$/.test(p)).map(Number);
  const found: number[] = [];
  for (const pid of pids) if ((await processInfo(pid))?.command.includes(dir)) found.push(pid);
  return found;
}

async function answers(endpoints: Stack['endpoints']): Promise<void> {
  const client = new pg.Client({ connectionString: endpoints.databaseUrl });
  await client.connect();
  await client.query('SELECT 1');
  await client.end();
  const { Connection } = temporalClientSdk();
  const connection = await Connection.connect({ address: endpoints.temporalAddress });
  await connection.workflowService.getSystemInfo({});
  await connection.close();
}

test('a start after one killed with SIGKILL stops the PostgreSQL and Temporal it left running, and comes up', async (t) => {
  t.timeout(110_000);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ld-killed-'));
  await fs.chmod(dataDir, 0o755); // as root, PostgreSQL runs as "postgres" and must enter it
  t.teardown(async () => {
    for (const pid of await processesOf(dataDir)) process.kill(pid, 'SIGKILL');
    await fs.rm(dataDir, { recursive: true, force: true });
  });
  const settings = {
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(await freePort()),
    TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
  };
  const killed = await startStack(settings);
  const postgresPid = Number((await fs.readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const temporalPid = JSON.parse(await fs.readFile(path.join(dataDir, 'temporal', 'dev-server.db.pid.json'), 'utf8')).pid as number;
  killed.child.kill('SIGKILL');
  await exited(killed.child);
  // Nothing ran to stop them: both outlive the killed process.
  t.truthy(await processInfo(postgresPid), 'PostgreSQL outlives the killed start');
  t.truthy(await processInfo(temporalPid), 'Temporal outlives the killed start');

  // The same ports and data: refused as "already in use" unless the leftovers are stopped first.
  const next = await startStack(settings);
  t.is(await processInfo(postgresPid), null, 'the killed run’s PostgreSQL is gone');
  t.is(await processInfo(temporalPid), null, 'the killed run’s Temporal is gone');
  await answers(next.endpoints);

  next.child.kill('SIGTERM');
  await exited(next.child);
  // A server may still be finishing its exit when its starter is gone (a busy machine): it goes on its own.
  const left = await eventually('no server of either run left', async () => ((await processesOf(dataDir)).length === 0 ? [] : null), {
    timeoutMs: 30_000,
  }).catch(async () => processesOf(dataDir));
  t.deepEqual(left, [], 'no server of either run is left');
});
