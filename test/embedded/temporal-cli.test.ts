import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { startTemporalDevServer, temporalCliPath } from '../../src/embedded/temporal.ts';
import { temporalClientSdk } from '../../src/temporal/client-sdk.ts';
import { freePort } from '../helpers/env.ts';

/** `npm start` and `npm test` use a `temporal` on PATH when it is the pinned version, and build one only otherwise. */

const SCRIPT = path.resolve(import.meta.dirname, '../../temporal/build-cli.sh');
const run = promisify(execFile);

async function tempDir(t: { teardown(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ld-temporal-cli-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

/** An executable `temporal` in `dir` that answers --version with `versionLine` and otherwise runs `body`. */
async function fakeCli(dir: string, versionLine: string, body = 'exit 3'): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, 'temporal');
  await fs.writeFile(file, `#!/bin/sh\nif [ "$1" = "--version" ]; then echo '${versionLine}'; exit 0; fi\n${body}\n`, { mode: 0o755 });
  return file;
}

/**
 * What temporal/build-cli.sh picks with `pathDir` first on a PATH of the system's tools, and a
 * user cache that already holds a built CLI (so nothing is built).
 */
async function picked(t: { teardown(fn: () => Promise<void>): void }, pathDir: string | null): Promise<{ cli: string; cached: string }> {
  const cache = await tempDir(t);
  const cached = await fakeCli(path.join(cache, 'listing-directory', 'temporal-v1.8.2'), 'temporal version 0.0.0-DEV');
  const PATH = [pathDir, '/usr/bin', '/bin'].filter(Boolean).join(':');
  const { stdout } = await run('bash', [SCRIPT], { env: { PATH, HOME: cache, XDG_CACHE_HOME: cache } });
  return { cli: stdout.trim(), cached };
}

test('a temporal on PATH that says the pinned version is used', async (t) => {
  const dir = await tempDir(t);
  const onPath = await fakeCli(dir, 'temporal version 1.8.2 (Server 1.31.2, UI 2.50.1)');
  t.is((await picked(t, dir)).cli, onPath);
});

for (const [what, line] of [
  ['another version', 'temporal version 1.7.0 (Server 1.29.1, UI 2.41.0)'],
  ['a version the pinned one only starts', 'temporal version 1.8.20 (Server 1.31.2, UI 2.50.1)'],
  ['a development build', 'temporal version 0.0.0-DEV (Server 1.31.2, UI 2.50.1)'],
  ['no version at all', 'usage: temporal [command]'],
] as const) {
  test(`a temporal on PATH with ${what} is not used: the cached build is`, async (t) => {
    const dir = await tempDir(t);
    await fakeCli(dir, line);
    const { cli, cached } = await picked(t, dir);
    t.is(cli, cached);
  });
}

test('without a temporal on PATH the cached build is used', async (t) => {
  const { cli, cached } = await picked(t, null);
  t.is(cli, cached);
});

test('the dev server is started from the temporal on PATH when it is the pinned version', async (t) => {
  const dir = await tempDir(t);
  const real = await temporalCliPath();
  const marker = path.join(dir, 'used');
  // Says the pinned version and runs the real CLI, noting that it was the one started.
  await fakeCli(path.join(dir, 'bin'), 'temporal version 1.8.2 (Server 1.31.2, UI 2.50.1)', `touch '${marker}'\nexec '${real}' "$@"`);
  const saved = process.env.PATH;
  process.env.PATH = `${path.join(dir, 'bin')}:${saved}`;
  t.teardown(() => void (process.env.PATH = saved));
  t.is(await temporalCliPath(), path.join(dir, 'bin', 'temporal'));
  const server = await startTemporalDevServer({ port: await freePort(), uiPort: null, dbFile: null, namespaces: ['default'] });
  t.teardown(() => server.stop());
  await fs.access(marker);
  const { Connection } = temporalClientSdk();
  const connection = await Connection.connect({ address: server.address });
  t.truthy((await connection.workflowService.getSystemInfo({})).serverVersion);
  await connection.close();
});
