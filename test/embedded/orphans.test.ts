import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { processInfo, recordServer, stopIfOrphaned } from '../../src/embedded/orphans.ts';

/** Which recorded server a start stops: only one whose starter is gone, and only the process recorded. */

const run = promisify(execFile);

async function recordDir(t: { teardown(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ld-orphans-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A `sleep` whose parent shell has exited, as a killed start's server is; its pid and the shell's. */
async function orphanedSleep(t: { teardown(fn: () => void): void }, seconds: number): Promise<{ pid: number; owner: number }> {
  const { stdout } = await run('sh', ['-c', `sleep ${seconds} >/dev/null 2>&1 & echo "$! $$"`]);
  const [pid, owner] = stdout.trim().split(' ').map(Number) as [number, number];
  t.teardown(() => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already stopped by the test
    }
  });
  return { pid, owner };
}

test('a recorded server whose starter is gone is stopped, and its record removed', async (t) => {
  const file = path.join(await recordDir(t), 'server.pid.json');
  const { pid, owner } = await orphanedSleep(t, 731);
  await fs.writeFile(file, JSON.stringify({ owner, pid, mark: '731', signal: 'SIGTERM' }));
  t.truthy(await processInfo(pid));
  t.is(await stopIfOrphaned(file), pid);
  t.is(await processInfo(pid), null);
  await t.throwsAsync(fs.access(file));
});

test('a server its starter still runs is left alone', async (t) => {
  const file = path.join(await recordDir(t), 'server.pid.json');
  const child = spawn('sleep', ['732']);
  t.teardown(() => child.kill('SIGKILL'));
  const forget = await recordServer(file, { pid: child.pid!, mark: '732', signal: 'SIGTERM' });
  t.is(await stopIfOrphaned(file), null);
  t.truthy(await processInfo(child.pid!));
  await forget();
  await t.throwsAsync(fs.access(file), undefined, 'a clean stop forgets the record');
});

test('a recorded pid now used by another program is not signalled', async (t) => {
  const file = path.join(await recordDir(t), 'server.pid.json');
  const { pid, owner } = await orphanedSleep(t, 733);
  await fs.writeFile(file, JSON.stringify({ owner, pid, mark: '/data/postgres', signal: 'SIGINT' }));
  t.is(await stopIfOrphaned(file), null);
  t.truthy(await processInfo(pid));
  await t.throwsAsync(fs.access(file), undefined, 'the stale record is dropped');
});
