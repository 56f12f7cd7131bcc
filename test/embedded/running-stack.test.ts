import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { announceStack, runningStack } from '../../src/embedded/running-stack.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';

/** An admin command finds a running `npm start` of the same DATA_DIR, whatever ports it was started on. */

const MAIN = path.resolve(import.meta.dirname, '../../src/main.ts');
const run = promisify(execFile);

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const tempDir = () => fs.mkdtemp(path.join(os.tmpdir(), 'ld-running-'));

test('an admin command without DATABASE_URL uses the database a running start announced in DATA_DIR', async (t) => {
  const dataDir = await tempDir();
  t.teardown(() => fs.rm(dataDir, { recursive: true, force: true }));
  // This test process stands for the running `npm start`: its pid is alive.
  const unannounce = await announceStack(dataDir, { databaseUrl: env.databaseUrl, temporalAddress: env.temporalAddress });
  const { DATABASE_URL: _db, TEMPORAL_ADDRESS: _temporal, ...environment } = process.env;
  // Ports nobody listens on: without the announcement the command would try (and fail) there.
  const result = await run(process.execPath, [MAIN, 'admin', 'users:create', '--email', 'found@example.com'], {
    env: { ...environment, DATA_DIR: dataDir, EMBEDDED_PG_PORT: '1', TEMPORAL_PORT: '2', LOG_LEVEL: 'silent' },
  });
  t.regex(result.stdout, /found@example\.com/);
  t.truthy(await env.services.db('users').where({ email: 'found@example.com' }).first());
  // The file holds the cluster's password: its owner alone reads it.
  t.is((await fs.stat(path.join(dataDir, 'running-stack.json'))).mode & 0o777, 0o600);
  await unannounce();
  t.is(await runningStack(dataDir), null);
});

test('an announcement left by a process that is gone is ignored', async (t) => {
  const dataDir = await tempDir();
  t.teardown(() => fs.rm(dataDir, { recursive: true, force: true }));
  const child = spawn(process.execPath, ['-e', '']);
  const pid = child.pid!;
  await new Promise((resolve) => child.once('exit', resolve));
  const endpoints = { databaseUrl: env.databaseUrl, temporalAddress: env.temporalAddress };
  await fs.writeFile(path.join(dataDir, 'running-stack.json'), JSON.stringify({ pid, ...endpoints, startedAt: new Date().toISOString() }));
  t.is(await runningStack(dataDir), null);
  // A live one is found; a damaged file is no announcement.
  await announceStack(dataDir, endpoints);
  t.deepEqual(await runningStack(dataDir), endpoints);
  await fs.writeFile(path.join(dataDir, 'running-stack.json'), '{"pid":');
  t.is(await runningStack(dataDir), null);
});
