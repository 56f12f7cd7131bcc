import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { pino } from 'pino';
import { createApp } from '../../src/app.ts';
import { createHttpServer } from '../../src/http/server.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { createUser } from '../../src/auth/users.ts';
import { loadConfig } from '../../src/config/config.ts';
import { operations } from '../../src/operations/index.ts';
import { createServices, type Services } from '../../src/services.ts';
import type { RunningWorkers } from '../../src/temporal/worker.ts';
import type { Clock } from '../../src/domain/time/clock.ts';
import { testWorkflowBundle } from './bundle.ts';
import { namespaceFor } from './namespace.ts';

export interface TestEnv {
  baseUrl: string;
  services: Services;
  databaseUrl: string;
  namespace: string;
  temporalAddress: string;
  /** A new user with an API key holding the given scopes. */
  user(scopes?: Scope[]): Promise<{ userId: number; key: string; email: string }>;
  /** Starts the Temporal workers against this env (drafts and the rest). */
  startWorkers(): Promise<RunningWorkers>;
  close(): Promise<void>;
}

export const ALL_SCOPES: Scope[] = ['account:read', 'listings:write', 'orders:write', 'webhooks:write', 'comments:write'];

function harnessEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the suite with \`npm test\``);
  return value;
}

/** A port nobody listens on right now, on loopback. */
export async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Clones the seeded template into a fresh database of this test file. */
export async function createTestDatabase(): Promise<string> {
  const adminUrl = harnessEnv('TEST_PG_URL');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name} TEMPLATE ${harnessEnv('TEST_TEMPLATE_DB')}`);
  } finally {
    await client.end();
  }
  return adminUrl.replace(/\/postgres$/, `/${name}`);
}

/**
 * The whole app on a free loopback port, with its own database and Temporal namespace.
 * `testFile` is the calling file's import.meta.url.
 */
export async function startTestEnv(
  testFile: string,
  env: Record<string, string> = {},
  options: {
    temporalAddress?: string;
    namespace?: string;
    clock?: Clock;
    /** Run this env's workflow-start dispatcher (as an api process does); off to leave recorded starts to another process. @default true */
    dispatch?: boolean;
    /** The host name of BASE_URL (the server listens on 127.0.0.1 either way): `localhost` for WebAuthn, which refuses IP addresses. @default '127.0.0.1' */
    host?: string;
  } = {},
): Promise<TestEnv> {
  const databaseUrl = await createTestDatabase();
  const temporalAddress = options.temporalAddress ?? harnessEnv('TEST_TEMPORAL_ADDRESS');
  const namespace = options.namespace ?? namespaceFor(testFile);
  const server = createHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  // Generated OAuth keys and other files of this env stay out of the repository's .data.
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ld-env-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: String(port),
    BASE_URL: `http://${options.host ?? '127.0.0.1'}:${port}`,
    TEMPORAL_NAMESPACE: namespace,
    LOG_LEVEL: 'silent',
    CRAWL_ALLOW_PRIVATE_NETWORKS: 'true',
    CRAWL_TIMEOUT_MS: '3000',
    // Test files register many OAuth clients from 127.0.0.1; the limit itself has its own tests.
    OAUTH_REGISTRATIONS_PER_IP: '1000',
    // Concurrent tests share owners and listings; the quotas have their own tests (test/api/quotas.test.ts).
    DRAFTS_MAX_IN_FLIGHT: '1000',
    DRAFTS_MAX_PER_HOUR: '1000',
    UPDATES_MAX_PER_LISTING_PER_HOUR: '1000',
    CHECK_OUTPUTS: 'true',
    // Tests read pages right after writing; the page and browse caches have their own tests.
    PAGE_CACHE_TTL_MS: '0',
    BROWSE_CACHE_TTL_MS: '0',
    ...env,
  });
  const services = createServices(config, { databaseUrl, temporalAddress }, undefined, { clock: options.clock });
  server.on('request', createApp(services, operations).callback());
  if (options.dispatch ?? true) services.workflowStarts.run();
  const workers: RunningWorkers[] = [];
  return {
    baseUrl: config.baseUrl,
    services,
    databaseUrl,
    namespace,
    temporalAddress,
    async user(scopes = ALL_SCOPES) {
      const email = `owner-${randomBytes(4).toString('hex')}@example.com`;
      const user = await createUser(services.db, email);
      const { key } = await createApiKey(services.db, user.id, 'test', scopes);
      return { userId: user.id, key, email };
    },
    async startWorkers() {
      // Loaded here, not at the top: @temporalio/worker (rxjs, memfs, webpack's entry...) is about
      // 0.2 s of CPU to load, and most test files never start a worker.
      const { startWorkers } = await import('../../src/temporal/worker.ts');
      await quietSdkLogs();
      const running = await startWorkers({ ...services, address: temporalAddress, namespace, bundle: await testWorkflowBundle() });
      workers.push(running);
      return running;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      for (const w of workers) await w.shutdown().catch(() => {});
      await services.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The SDK's own log lines (worker states, replay warnings) go through a silent logger, as the
 * app's own lines do in tests, instead of the SDK's console logger. Once per process, before its
 * first worker; a file that installed the runtime itself (to read its logs or metrics) keeps its own.
 */
export async function quietSdkLogs(): Promise<void> {
  const [{ installTemporalRuntime }, { IllegalStateError }] = await Promise.all([
    import('../../src/temporal/runtime.ts'),
    import('@temporalio/common'),
  ]);
  try {
    installTemporalRuntime({ host: '127.0.0.1', metrics: { port: null, temporalPort: null } }, pino({ level: 'silent' }));
  } catch (err) {
    if (!(err instanceof IllegalStateError)) throw err;
  }
}

/**
 * JSON request helper over node:http (fetch would drop a Host header, and tests pick the site by
 * host): returns status, headers and the parsed body. `path` is under /api/v1.
 */
export function api(env: Pick<TestEnv, 'baseUrl'>, method: string, path: string, options: RequestOptions = {}): Promise<HttpResult> {
  return request(env, method, `/api/v1${path}`, options);
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface HttpResult {
  status: number;
  headers: Headers;
  body: any;
  /** The body exactly as it came. */
  text: string;
}

/** Like api() for any path of the app (/mcp, /.well-known/..., pages). */
export async function request(
  env: Pick<TestEnv, 'baseUrl'>,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  const payload = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  if (payload !== undefined) headers['content-type'] ??= 'application/json';
  const url = new URL(`${env.baseUrl}${path}`);
  const { status, responseHeaders, text } = await new Promise<{ status: number; responseHeaders: Headers; text: string }>(
    (resolve, reject) => {
      const req = http.request(url, { method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            // Set-Cookie stays one entry per cookie (getSetCookie()); other repeated headers join.
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(name, one);
          }
          resolve({ status: res.statusCode ?? 0, responseHeaders, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    },
  );
  let body: any;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status, headers: responseHeaders, body, text };
}
