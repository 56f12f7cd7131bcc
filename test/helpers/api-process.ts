/**
 * An api process that dies (SIGKILL) right after a write committed and before it starts the
 * workflow the write recorded: the crash the workflow-start outbox is for. Its dispatcher does not
 * run; the environment names the database, Temporal and the port (PORT).
 */
import { pino } from 'pino';
import { createApp } from '../../src/app.ts';
import { createHttpServer } from '../../src/http/server.ts';
import { loadConfig } from '../../src/config/config.ts';
import { operations } from '../../src/operations/index.ts';
import { createServices } from '../../src/services.ts';

const config = loadConfig();
const services = createServices(
  config,
  { databaseUrl: process.env.API_DATABASE_URL!, temporalAddress: process.env.API_TEMPORAL_ADDRESS! },
  pino({ level: 'silent' }),
);
const dying = {
  ...services,
  workflowStarts: {
    ...services.workflowStarts,
    inlineLeaseMs: () => config.workflowStarts.leaseMs,
    startNow: async () => {
      process.kill(process.pid, 'SIGKILL');
    },
  },
};
const server = createHttpServer(createApp(dying, operations).callback());
server.listen(config.port, '127.0.0.1', () => console.log('api ready'));
