import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/embedded/postgres.ts';
import { freePort } from '../helpers/env.ts';

test('the embedded cluster is UTF-8 and searches non-ASCII words whole, also on a machine without a locale', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ld-encoding-'));
  await fs.chmod(dir, 0o755); // as root, PostgreSQL runs as "postgres" and must enter it
  // initdb follows the locale of its environment; LC_ALL=C is what a bare container has.
  const saved = process.env.LC_ALL;
  process.env.LC_ALL = 'C';
  const server = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), port: await freePort() }).finally(() => {
    if (saved === undefined) delete process.env.LC_ALL;
    else process.env.LC_ALL = saved;
  });
  const client = new pg.Client({ connectionString: server.url('postgres') });
  t.teardown(async () => {
    await client.end();
    await server.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });
  await client.connect();
  const { rows } = await client.query(
    `SELECT current_setting('server_encoding') AS encoding, lower('ÄÖÜ ΑΒΓ') AS lower,
            tsvector_to_array(to_tsvector('simple', 'Bücher Diff542 straße café ΑΒΓ')) AS words`,
  );
  t.is(rows[0].encoding, 'UTF8');
  t.is(rows[0].lower, 'äöü αβγ');
  t.deepEqual([...rows[0].words].sort(), ['bücher', 'café', 'diff542', 'straße', 'αβγ']);
});
