/**
 * A worker in a process of its own (for tests that kill it): the environment names the database and
 * Temporal, and passes on the run's workflow bundle (TEST_WORKFLOW_BUNDLE), so a restart takes no
 * bundling.
 */
import { pino } from 'pino';
import { loadConfig } from '../../src/config/config.ts';
import { createServices } from '../../src/services.ts';
import { installTemporalRuntime } from '../../src/temporal/runtime.ts';
import { startWorkers } from '../../src/temporal/worker.ts';
import { testWorkflowBundle } from './bundle.ts';

const config = loadConfig();
const address = process.env.WORKER_TEMPORAL_ADDRESS!;
const services = createServices(
  config,
  { databaseUrl: process.env.WORKER_DATABASE_URL!, temporalAddress: address },
  pino({ level: 'silent' }),
);
// The SDK's log lines through the same silent logger, not the console.
installTemporalRuntime(config, services.log);
await startWorkers({
  ...services,
  address,
  namespace: config.temporal.namespace,
  bundle: await testWorkflowBundle(),
});
console.log('worker ready');
