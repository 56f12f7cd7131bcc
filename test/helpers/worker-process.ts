/**
 * A worker in a process of its own (for tests that kill it): the environment names the database,
 * Temporal and a workflow bundle prepared once by the test, so a restart takes no bundling.
 */
import fs from 'node:fs/promises';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.ts';
import { createDb } from '../../src/db/knex.ts';
import { startWorkers } from '../../src/temporal/worker.ts';

const config = loadConfig();
const db = createDb(process.env.WORKER_DATABASE_URL!);
await startWorkers({
  config,
  db,
  address: process.env.WORKER_TEMPORAL_ADDRESS!,
  namespace: config.temporal.namespace,
  log: pino({ level: 'silent' }),
  bundle: { code: await fs.readFile(process.env.WORKER_BUNDLE_FILE!, 'utf8') },
});
console.log('worker ready');
