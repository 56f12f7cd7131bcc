import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { startEmbeddedPostgres } from '../../src/embedded/postgres.ts';
import { StartupError } from '../../src/embedded/startup-error.ts';
import { freePort } from '../helpers/env.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Holds a loopback port the way another program would. */
async function takePort(t: { teardown(fn: () => Promise<void>): void }): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

async function tempDir(t: { teardown(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ld-startup-'));
  await fs.chmod(dir, 0o755); // as root, PostgreSQL runs as "postgres" and must enter it
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

/** `npm start` (main.ts start) with the given settings; its exit code and stderr. */
async function start(vars: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'silent', ...vars };
  const child = spawn(process.execPath, [path.join(ROOT, 'src/main.ts'), 'start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  return { code, stderr, stdout };
}

/** Settings of a start whose every port is free, in a fresh data directory. */
async function freeSettings(dataDir: string): Promise<Record<string, string>> {
  return {
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    EMBEDDED_PG_PORT: String(await freePort()),
    TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
  };
}

for (const [setting, what] of [
  ['EMBEDDED_PG_PORT', /embedded PostgreSQL/],
  ['TEMPORAL_PORT', /Temporal dev server/],
  ['TEMPORAL_UI_PORT', /Temporal UI/],
  ['PORT', /web server/],
] as const) {
  test(`npm start with ${setting} taken says so, names the setting and starts nothing`, async (t) => {
    const dataDir = await tempDir(t);
    const taken = await takePort(t);
    const result = await start({ ...(await freeSettings(dataDir)), [setting]: String(taken) });
    t.is(result.code, 1, result.stderr);
    t.regex(result.stderr, what);
    t.true(result.stderr.includes(`127.0.0.1:${taken}`), result.stderr);
    t.regex(result.stderr, /already in use/);
    t.regex(result.stderr, new RegExp(`set ${setting} to a free port`));
    t.notRegex(result.stderr, /undefined/);
    t.deepEqual(await fs.readdir(dataDir), [], 'nothing was initialised');
  });
}

test('the embedded PostgreSQL on a taken port fails with PostgreSQL’s reason and the settings', async (t) => {
  const dir = path.join(await tempDir(t), 'pg');
  const taken = await takePort(t);
  const error = await t.throwsAsync(startEmbeddedPostgres({ dir, port: taken }), { instanceOf: StartupError });
  t.regex(error!.message, new RegExp(`PostgreSQL did not start on 127\\.0\\.0\\.1:${taken}`));
  t.regex(error!.message, /Address already in use|could not bind|could not create any TCP\/IP sockets/i);
  t.regex(error!.message, /EMBEDDED_PG_PORT/);
  t.notRegex(error!.message, /undefined/);
});

test('a data directory the database cannot enter fails with the reason and DATA_DIR', async (t) => {
  const locked = path.join(await tempDir(t), 'locked');
  await fs.mkdir(locked, { mode: 0o700 });
  // Root may enter anything, but PostgreSQL then runs as "postgres"; other users cannot write here.
  await fs.chmod(locked, process.getuid?.() === 0 ? 0o700 : 0o500);
  const error = await t.throwsAsync(startEmbeddedPostgres({ dir: path.join(locked, 'data', 'postgres'), port: await freePort() }), {
    instanceOf: StartupError,
  });
  t.regex(error!.message, /PostgreSQL could not create its data directory .*locked\/data\/postgres/);
  t.regex(error!.message, /Permission denied|EACCES|permission/i);
  t.regex(error!.message, /set DATA_DIR to a directory the database can use/);
});
