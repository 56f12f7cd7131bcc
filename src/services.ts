import { pino, type Logger } from 'pino';
import { createAuthenticator, type Authenticate } from './auth/credentials.ts';
import { loadOAuthKeys, type OAuthKeys } from './auth/oauth/keys.ts';
import type { Config } from './config.ts';
import { createDb, type Db } from './db/knex.ts';
import type { SearchEngine } from './domain/listings/search-port.ts';
import { createMetrics, type Metrics } from './metrics/registry.ts';
import { createSearchEngine } from './search/engines.ts';
import { createWorkflowStarter, type WorkflowStarter } from './temporal/client.ts';

/** Long-lived handles of one process, created once and passed down. */
export interface Services {
  config: Config;
  db: Db;
  workflows: WorkflowStarter;
  log: Logger;
  /** OAuth signing and cookie keys (environment or data directory). */
  oauthKeys: OAuthKeys;
  /** Bearer token → principal, for REST and MCP. */
  authenticate: Authenticate;
  /** Prometheus series of this process (served on METRICS_PORT). */
  metrics: Metrics;
  /** Answers search_listings and the front page's search (SEARCH_ENGINE), one per process. */
  search: SearchEngine;
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
  const oauthKeys = loadOAuthKeys(config);
  const workflows = createWorkflowStarter({ address: endpoints.temporalAddress, namespace: config.temporal.namespace });
  return {
    config,
    db,
    workflows,
    log,
    oauthKeys,
    authenticate: createAuthenticator(db, config, oauthKeys),
    metrics: createMetrics(db),
    search: createSearchEngine(db, config.search),
    async close() {
      await workflows.close().catch(() => {});
      await db.destroy();
    },
  };
}
