import { pino, type Logger } from 'pino';
import type { Config } from './config.ts';
import { createDb, type Db } from './db/knex.ts';
import { createWorkflowStarter, type WorkflowStarter } from './temporal/client.ts';

/** Long-lived handles of one process, created once and passed down. */
export interface Services {
  config: Config;
  db: Db;
  workflows: WorkflowStarter;
  log: Logger;
  close(): Promise<void>;
}

export interface Endpoints {
  databaseUrl: string;
  temporalAddress: string;
}

export function createLogger(config: Config): Logger {
  return pino({ level: config.logLevel, base: { service: 'listing-directory' } });
}

export function createServices(config: Config, endpoints: Endpoints, log = createLogger(config)): Services {
  const db = createDb(endpoints.databaseUrl);
  const workflows = createWorkflowStarter({ address: endpoints.temporalAddress, namespace: config.temporal.namespace });
  return {
    config,
    db,
    workflows,
    log,
    async close() {
      await workflows.close().catch(() => {});
      await db.destroy();
    },
  };
}
