import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { startOpenSearchNode, stopOrphanedOpenSearch } from '../../src/embedded/opensearch.ts';
import { processInfo } from '../../src/embedded/orphans.ts';
import { freePort } from '../helpers/env.ts';

// The node `npm start` runs for SEARCH_ENGINE=opensearch: it answers, and one a killed start left
// running is stopped by the next start (as the embedded PostgreSQL and Temporal are).

test('a node recorded by a start that was killed is stopped by the next start; one whose starter lives is left alone', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ld-opensearch-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const node = await startOpenSearchNode({ dir, port: await freePort(), heap: '256m', durable: true });
  t.teardown(() => node.stop());
  const health = await (await fetch(`${node.url}/_cluster/health`)).json();
  t.is(health.cluster_name, 'listing-directory');

  t.is(await stopOrphanedOpenSearch(dir), null, 'its starter (this process) is alive');
  t.truthy(await processInfo(node.pid));

  // As if the start had been killed: the record names a starter that is gone.
  const { stdout } = await promisify(execFile)('sh', ['-c', 'echo $$']);
  const record = path.join(dir, 'node.pid.json');
  await fs.writeFile(record, JSON.stringify({ ...JSON.parse(await fs.readFile(record, 'utf8')), owner: Number(stdout.trim()) }));
  t.is(await stopOrphanedOpenSearch(dir), node.pid);
  t.is(await processInfo(node.pid), null);
  await t.throwsAsync(fetch(`${node.url}/`));
  await t.throwsAsync(fs.access(record));
});
