import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Endpoints } from '../services.ts';
import { startOpenSearchNode, stopOrphanedOpenSearch } from './opensearch.ts';
import { startEmbeddedPostgres, stopOrphanedPostgres } from './postgres.ts';
import { assertPortsFree, type PortNeed } from './startup-error.ts';
import { startTemporalDevServer, stopOrphanedTemporal } from './temporal.ts';

const DATABASE = 'listing_directory';

/** Where the embedded defaults listen; used when DATABASE_URL / TEMPORAL_ADDRESS are unset. */
export function endpointsFor(config: Config): Endpoints {
  return {
    databaseUrl: config.databaseUrl ?? `postgres://postgres:listing-directory-local@127.0.0.1:${config.embeddedPgPort}/${DATABASE}`,
    temporalAddress: config.temporal.address ?? `127.0.0.1:${config.temporal.port}`,
  };
}

export interface EmbeddedStack {
  endpoints: Endpoints;
  temporalUiUrl: string | null;
  stop(): Promise<void>;
}

/** Starts embedded PostgreSQL and the Temporal dev server for whatever is not configured externally. */
export async function startEmbeddedStack(config: Config, log: Logger): Promise<EmbeddedStack> {
  const stops: (() => Promise<void>)[] = [];
  const endpoints = endpointsFor(config);
  let temporalUiUrl: string | null = null;
  await stopOrphans(config, log);
  await assertPortsFree(portsNeeded(config));
  try {
    if (!config.databaseUrl) {
      log.info('starting embedded PostgreSQL');
      const pg = await startEmbeddedPostgres({
        dir: postgresDir(config),
        port: config.embeddedPgPort,
        onLog: (line) => log.debug({ component: 'postgres' }, line.trim()),
      });
      stops.push(() => pg.stop());
      await pg.ensureDatabase(DATABASE);
    }
    if (!config.temporal.address) {
      log.info(
        'starting Temporal dev server (the temporal on PATH when it is the pinned version, else the CLI built once from Go modules)',
      );
      const temporal = await startTemporalDevServer({
        port: config.temporal.port,
        uiPort: config.temporal.uiPort,
        dbFile: temporalDbFile(config),
        namespaces: [config.temporal.namespace],
        onLog: (line) => log.debug({ component: 'temporal' }, line.trim()),
      });
      stops.push(() => temporal.stop());
      temporalUiUrl = temporal.uiUrl;
    }
    if (config.search.engine === 'opensearch' && config.search.openSearch.embedded) {
      log.info('starting an OpenSearch node (built once from Maven Central by opensearch/node.sh)');
      const node = await startOpenSearchNode({
        dir: openSearchDir(config),
        durable: true,
        port: config.search.openSearch.port,
        onLog: (line) => log.debug({ component: 'opensearch' }, line.trim()),
      });
      stops.push(() => node.stop());
    }
  } catch (err) {
    await stopAll(stops);
    throw err;
  }
  return { endpoints, temporalUiUrl, stop: () => stopAll(stops) };
}

const postgresDir = (config: Config) => path.join(config.dataDir, 'postgres');
const openSearchDir = (config: Config) => path.join(config.dataDir, 'opensearch');
const temporalDbFile = (config: Config) => path.join(config.dataDir, 'temporal', 'dev-server.db');

/**
 * The embedded servers a killed `npm start` (SIGKILL, the OOM killer) left running on this data
 * directory are stopped first: they hold the ports and the data this start needs.
 */
async function stopOrphans(config: Config, log: Logger): Promise<void> {
  const embeddedSearch = config.search.engine === 'opensearch' && config.search.openSearch.embedded;
  const [pg, temporal, search] = await Promise.all([
    config.databaseUrl ? null : stopOrphanedPostgres(postgresDir(config)),
    config.temporal.address ? null : stopOrphanedTemporal(temporalDbFile(config)),
    embeddedSearch ? stopOrphanedOpenSearch(openSearchDir(config)) : null,
  ]);
  if (pg) log.warn({ pid: pg }, 'stopped the embedded PostgreSQL a killed start left running');
  if (temporal) log.warn({ pid: temporal }, 'stopped the Temporal dev server a killed start left running');
  if (search) log.warn({ pid: search }, 'stopped the OpenSearch node a killed start left running');
}

/** The ports `npm start` listens on, each with the setting that moves it. */
export function portsNeeded(config: Config): PortNeed[] {
  const needs: PortNeed[] = [];
  if (!config.databaseUrl) {
    needs.push({
      host: '127.0.0.1',
      port: config.embeddedPgPort,
      what: 'The embedded PostgreSQL',
      fix: 'set EMBEDDED_PG_PORT to a free port, or DATABASE_URL to use a PostgreSQL that is already running',
    });
  }
  if (!config.temporal.address) {
    const external = 'or TEMPORAL_ADDRESS to use a Temporal server that is already running';
    needs.push({
      host: '127.0.0.1',
      port: config.temporal.port,
      what: 'The Temporal dev server',
      fix: `set TEMPORAL_PORT to a free port, ${external}`,
    });
    needs.push({
      host: '127.0.0.1',
      port: config.temporal.uiPort,
      what: 'The Temporal UI',
      fix: `set TEMPORAL_UI_PORT to a free port, ${external}`,
    });
  }
  if (config.search.engine === 'opensearch' && config.search.openSearch.embedded) {
    needs.push({
      host: '127.0.0.1',
      port: config.search.openSearch.port,
      what: 'The OpenSearch node',
      fix: 'set OPENSEARCH_PORT to a free port, or OPENSEARCH_URL to use an OpenSearch that is already running',
    });
  }
  needs.push({ host: config.host, port: config.port, what: 'The web server (REST, MCP, pages)', fix: 'set PORT to a free port' });
  return needs;
}

/** Together: neither server needs the other (the dev server keeps its own SQLite), and a shutdown's time is bounded. */
async function stopAll(stops: (() => Promise<void>)[]): Promise<void> {
  await Promise.all(stops.map((stop) => stop().catch(() => {})));
}
