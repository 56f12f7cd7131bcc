import type { JsonWebKey } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import type { SearchSettings } from './search/engines.ts';
import { ORDER_ENV, orderConfig, type OrderConfig } from './config-orders.ts';
import { WEBHOOK_ENV, webhookConfig, type WebhookConfig } from './config-webhooks.ts';
import { WORKFLOW_START_ENV, workflowStartConfig, type WorkflowStartConfig } from './config-workflow-starts.ts';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const EnvSchema = z.object({
  /** Port of the Koa app (REST, MCP, OAuth, web). @default 3000 */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Interface the app binds. @default 127.0.0.1 */
  HOST: z.string().default('127.0.0.1'),
  /**
   * Reverse proxies in front of the app that append to X-Forwarded-For (0: none, the socket is the
   * client). With 1 or more, the client address, scheme and host come from the X-Forwarded-* headers.
   */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  /** Public origin of the service; defaults to http://localhost:$PORT. */
  BASE_URL: z.url().optional(),
  /** External PostgreSQL; when absent the embedded one under DATA_DIR is used. */
  DATABASE_URL: z.string().optional(),
  /** External Temporal frontend (host:port); when absent the embedded dev server is used. */
  TEMPORAL_ADDRESS: z.string().optional(),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  /** Port of the embedded Temporal dev server and of its UI. */
  TEMPORAL_PORT: z.coerce.number().int().default(7233),
  TEMPORAL_UI_PORT: z.coerce.number().int().default(8233),
  /** Port of GET /metrics (Prometheus) of an api process, on HOST; unset: no metrics endpoint. Never PORT. */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** Port where a worker process's Temporal SDK exports its own metrics (Prometheus); unset: off. */
  TEMPORAL_METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /**
   * On SIGTERM, how long requests in flight and running activities get to finish before they are
   * cut off (activities then see cancellation; Temporal retries them elsewhere).
   */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(25_000),
  /** The Temporal UI operators open (links printed by flows:stuck); default the embedded dev server's UI. */
  TEMPORAL_UI_URL: z.url().optional(),
  /** Port of the embedded PostgreSQL. */
  EMBEDDED_PG_PORT: z.coerce.number().int().default(54329),
  /** Where embedded PostgreSQL, Temporal state and generated keys live. @default ./.data */
  DATA_DIR: z.string().default('.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * What answers search_listings: `memory`, an index in each api process kept in step with
   * PostgreSQL, or `postgres`, the SQL (the reference). @default memory
   */
  SEARCH_ENGINE: z.enum(['memory', 'postgres']).default('memory'),
  /** How long one api process reuses a public search result (postgres engine only); 0 turns the cache off. */
  SEARCH_CACHE_TTL_MS: z.coerce.number().int().min(0).default(10_000),
  /** How long one api process reuses the product list and prices; 0 turns the cache off. */
  CATALOG_CACHE_TTL_MS: z.coerce.number().int().min(0).default(1_000),
  /** How long one api process reuses a public leaderboard (get_community_leaderboard); 0 turns the cache off. */
  LEADERBOARD_CACHE_TTL_MS: z.coerce.number().int().min(0).default(1_000),
  /** How long one api process reuses category counts, coming launches, feeds and the sitemap; 0 turns the cache off. */
  BROWSE_CACHE_TTL_MS: z.coerce.number().int().min(0).default(10_000),
  /** How long one api process reuses the public pages it rendered for visitors without a session; 0 turns it off. */
  PAGE_CACHE_TTL_MS: z.coerce.number().int().min(0).default(10_000),
  /** URLs per sitemap file; beyond it /sitemap.xml is an index of files (the protocol's limit is 50,000). */
  SITEMAP_URLS_PER_FILE: z.coerce.number().int().min(1).max(50_000).default(50_000),
  /** Lets the crawler reach private and loopback addresses: development and tests only. */
  CRAWL_ALLOW_PRIVATE_NETWORKS: bool.default(false),
  CRAWL_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  CRAWL_MAX_BYTES: z.coerce.number().int().positive().default(2_000_000),
  CRAWL_MAX_PAGES: z.coerce.number().int().min(1).max(20).default(5),
  /** Extra Host values /mcp answers to (comma-separated), e.g. behind a proxy; BASE_URL's host always is. */
  MCP_ALLOWED_HOSTS: z.string().default(''),
  /** Browser origins allowed to call /mcp (comma-separated; `*` for any); BASE_URL's origin always is. */
  MCP_ALLOWED_ORIGINS: z.string().default(''),
  /** MCP fast paths: plain tools/call answered without the SDK's per-request server, kept SDK answers replayed (src/mcp/direct-call.ts, replayed-answers.ts). */
  MCP_DIRECT_TOOL_CALLS: bool.default(true),
  /** SMTP server for outgoing mail (smtp:// or smtps://, credentials in the URL); without it mail stays in the outbox. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^/]+/, 'Must be an smtp:// or smtps:// URL')
    .optional(),
  /** Sender of every mail. @default Listing Directory <no-reply@localhost> */
  MAIL_FROM: z.string().min(3).default('Listing Directory <no-reply@localhost>'),
  /** How often a worker looks for queued mail that no workflow delivered (or that is due for a retry). */
  MAIL_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(10_000),
  /** Followers told per activity call when a listing update fans out. */
  UPDATE_FANOUT_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
  /** Drafts of one account crawling or drafting at a time (each crawls a third-party site). @default 3 */
  DRAFTS_MAX_IN_FLIGHT: z.coerce.number().int().min(1).default(3),
  /** Drafts one account may create per hour. @default 20 */
  DRAFTS_MAX_PER_HOUR: z.coerce.number().int().min(1).default(20),
  /** Updates one listing may post per hour (each tells every follower). @default 6 */
  UPDATES_MAX_PER_LISTING_PER_HOUR: z.coerce.number().int().min(1).default(6),
  /** A follower gets at most one mail per listing per this window; later updates wait for one digest. @default 3600 */
  UPDATE_MAIL_WINDOW_SECONDS: z.coerce.number().int().min(1).default(3600),
  /** OAuth signing keys as a JWKS JSON ({"keys":[private EC P-256 JWKs]}); several api machines must share them. */
  OAUTH_JWKS: z.string().optional(),
  /** Comma-separated secrets for the authorization server's cookies; generated into DATA_DIR when absent. */
  OAUTH_COOKIE_KEYS: z.string().default(''),
  /** Hosts (host:port) whose client ID metadata documents may be fetched on private/loopback addresses: development and tests only. */
  OAUTH_CLIENT_METADATA_HOSTS: z.string().default(''),
  /** Extra CA (PEM file) trusted when fetching from OAUTH_CLIENT_METADATA_HOSTS. */
  OAUTH_CLIENT_METADATA_CA_FILE: z.string().optional(),
  /** Open dynamic client registrations per client address within the window before 429. @default 20 per 3600 s */
  OAUTH_REGISTRATIONS_PER_IP: z.coerce.number().int().min(1).default(20),
  OAUTH_REGISTRATION_WINDOW_SECONDS: z.coerce.number().int().min(1).default(3600),
  /** `production` turns development conveniences (the mailbox page) off. */
  NODE_ENV: z.string().optional(),
  /**
   * The /dev/mailbox pages (every mail, reset links included). @default on only when BASE_URL is a
   * loopback address (localhost, 127.0.0.0/8, [::1]), SMTP_URL is unset and NODE_ENV is not production.
   */
  DEV_MAILBOX: bool.optional(),
  /** Failed web sign-ins on one email from one client address / from one client address within the window before 429. */
  SIGNIN_MAX_FAILURES_PER_EMAIL: z.coerce.number().int().min(1).default(5),
  SIGNIN_MAX_FAILURES_PER_IP: z.coerce.number().int().min(1).default(20),
  SIGNIN_WINDOW_SECONDS: z.coerce.number().int().min(1).default(900),
  /** Longest slow-down of a sign-in attempt on an address with many failures from everywhere (it is never blocked). @default 10 */
  SIGNIN_MAX_DELAY_SECONDS: z.coerce.number().min(0).max(60).default(10),
  /** DNS servers (host:port, comma-separated) that claim checks ask for TXT records; empty: the system's. */
  CLAIM_DNS_SERVERS: z.string().default(''),
  /** When a claim's workflow checks on its own: `every/until` pairs, each until counted from the claim's start. */
  CLAIM_CHECK_SCHEDULE: z.string().default('1m/5m,5m/1h,30m/24h,4h/7d'),
  /** How long a claim stays pending before it expires (also the life of its emailed links). */
  CLAIM_LIFETIME: z.string().default('7d'),
  /** Least time between two requested checks (verify_claim, Check now) of one claim. */
  CLAIM_VERIFY_MIN_INTERVAL: z.string().default('10s'),
  ...ORDER_ENV,
  ...WEBHOOK_ENV,
  ...WORKFLOW_START_ENV,
  /** Check every operation result against its output schema and fail the call if it does not match (the tests turn it on). */
  CHECK_OUTPUTS: bool.default(false),
});

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `500ms`, `10s`, `5m`, `4h`, `7d` → milliseconds. */
function duration(name: string, value: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(value.trim());
  if (!match || Number(match[1]) === 0)
    throw new Error(`Invalid environment:\n  ${name}: "${value}" is not a duration like 30s, 5m, 4h or 7d`);
  return Number(match[1]) * DURATION_UNITS[match[2]!]!;
}

/** `1m/5m,5m/1h` → [{everyMs, untilMs}], in order, each phase ending after the one before. */
function checkSchedule(value: string): ClaimCheckPhase[] {
  const phases = list(value).map((pair) => {
    const [every, until, extra] = pair.split('/');
    if (!every || !until || extra !== undefined)
      throw new Error(`Invalid environment:\n  CLAIM_CHECK_SCHEDULE: "${pair}" is not every/until`);
    return { everyMs: duration('CLAIM_CHECK_SCHEDULE', every), untilMs: duration('CLAIM_CHECK_SCHEDULE', until) };
  });
  if (phases.length === 0 || phases.some((p, i) => i > 0 && p.untilMs <= phases[i - 1]!.untilMs)) {
    throw new Error('Invalid environment:\n  CLAIM_CHECK_SCHEDULE: give every/until pairs with growing until values');
  }
  return phases;
}

/** `1.1.1.1`, `127.0.0.1:5353`, `[::1]:53`: addresses (node:dns takes no host names), optional port. */
function dnsServers(value: string): string[] {
  const servers = list(value);
  const bad = servers.filter(
    (s) => !/^(?:\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?|\[[0-9a-f:.]+\](?::\d{1,5})?|[0-9a-f:]+:[0-9a-f:.]*)$/i.test(s),
  );
  if (bad.length)
    throw new Error(`Invalid environment:\n  CLAIM_DNS_SERVERS: ${bad.join(', ')} is not an IP address with an optional :port`);
  return servers;
}

const list = (value: string) =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

function parseJwks(value: string): JsonWebKey[] {
  try {
    const keys = (JSON.parse(value) as { keys?: unknown }).keys;
    if (Array.isArray(keys) && keys.length) return keys as JsonWebKey[];
  } catch {
    // reported below
  }
  throw new Error('Invalid environment:\n  OAUTH_JWKS: must be JSON like {"keys":[<private EC P-256 JWK>]}');
}

/** Whether a URL's host is this machine only (a deployment nobody else can reach). */
function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Typed configuration of one process. */
export interface Config {
  port: number;
  host: string;
  /** Trusted reverse proxies in front of the app (see TRUST_PROXY_HOPS). */
  proxyHops: number;
  baseUrl: string;
  databaseUrl: string | undefined;
  temporal: { address: string | undefined; namespace: string; port: number; uiPort: number; uiUrl: string };
  embeddedPgPort: number;
  /** SIGTERM: time given to requests in flight and running activities (SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
  /** Prometheus endpoints, each on its own port or null (off). */
  metrics: { port: number | null; temporalPort: number | null };
  dataDir: string;
  logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
  search: SearchSettings;
  cache: { catalogTtlMs: number; leaderboardTtlMs: number; browseTtlMs: number; pageTtlMs: number };
  /** URLs per sitemap file (SITEMAP_URLS_PER_FILE). */
  sitemapUrlsPerFile: number;
  crawl: CrawlOptions;
  /** Keys from the environment; loadOAuthKeys() falls back to DATA_DIR. */
  oauth: {
    jwks: JsonWebKey[] | undefined;
    cookieKeys: string[];
    metadataHosts: string[];
    metadataCaFile: string | undefined;
    registrationLimit: RegistrationLimit;
  };
  /** DNS-rebinding guard of /mcp. */
  mcp: { allowedHosts: string[]; allowedOrigins: string[]; directToolCalls: boolean };
  mail: { smtpUrl: string | undefined; from: string; sweepIntervalMs: number };
  updates: { fanOutBatchSize: number; mailWindowSeconds: number };
  /** Per-account limits of create_draft and post_listing_update (429 quota_exceeded). */
  quotas: QuotaSettings;
  /** The /dev/mailbox pages: DEV_MAILBOX, else only on a loopback BASE_URL without SMTP, outside production. */
  devMailbox: boolean;
  signin: SigninLimits;
  claims: ClaimSettings;
  /** See CHECK_OUTPUTS. */
  checkOutputs: boolean;
  /** Checkout, promo limits and the payment provider (see config-orders.ts). */
  orders: OrderConfig;
  /** Owners' webhooks: retry schedule and dispatcher (see config-webhooks.ts). */
  webhooks: WebhookConfig;
  /** Workflow starts recorded by writes: the dispatchers' sweep, lease and retries (see config-workflow-starts.ts). */
  workflowStarts: WorkflowStartConfig;
}

/** One phase of a claim's own checks: every `everyMs` until `untilMs` after the claim started. */
export interface ClaimCheckPhase {
  everyMs: number;
  untilMs: number;
}

export interface ClaimSettings {
  /** host:port of the DNS servers for TXT lookups; empty: the system's. */
  dnsServers: string[];
  schedule: ClaimCheckPhase[];
  lifetimeMs: number;
  verifyIntervalMs: number;
}

/** Reads the environment once; fails fast with every invalid variable named. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid environment:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.METRICS_PORT !== undefined && [e.PORT, e.TEMPORAL_METRICS_PORT].includes(e.METRICS_PORT)) {
    throw new Error(
      'Invalid environment:\n  METRICS_PORT: must differ from PORT and TEMPORAL_METRICS_PORT (metrics never share the public port)',
    );
  }
  const baseUrl = (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  return {
    port: e.PORT,
    host: e.HOST,
    proxyHops: e.TRUST_PROXY_HOPS,
    baseUrl,
    databaseUrl: e.DATABASE_URL,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      port: e.TEMPORAL_PORT,
      uiPort: e.TEMPORAL_UI_PORT,
      uiUrl: (e.TEMPORAL_UI_URL ?? `http://localhost:${e.TEMPORAL_UI_PORT}`).replace(/\/+$/, ''),
    },
    embeddedPgPort: e.EMBEDDED_PG_PORT,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    metrics: { port: e.METRICS_PORT ?? null, temporalPort: e.TEMPORAL_METRICS_PORT ?? null },
    dataDir: path.resolve(e.DATA_DIR),
    logLevel: e.LOG_LEVEL,
    search: { engine: e.SEARCH_ENGINE, cacheTtlMs: e.SEARCH_CACHE_TTL_MS },
    cache: {
      catalogTtlMs: e.CATALOG_CACHE_TTL_MS,
      leaderboardTtlMs: e.LEADERBOARD_CACHE_TTL_MS,
      browseTtlMs: e.BROWSE_CACHE_TTL_MS,
      pageTtlMs: e.PAGE_CACHE_TTL_MS,
    },
    sitemapUrlsPerFile: e.SITEMAP_URLS_PER_FILE,
    crawl: {
      allowPrivateNetworks: e.CRAWL_ALLOW_PRIVATE_NETWORKS,
      timeoutMs: e.CRAWL_TIMEOUT_MS,
      maxBytes: e.CRAWL_MAX_BYTES,
      maxPages: e.CRAWL_MAX_PAGES,
      maxRedirects: 5,
      userAgent: `ListingDirectoryBot/1.0 (+${baseUrl}/bot)`,
    },
    oauth: {
      jwks: e.OAUTH_JWKS ? parseJwks(e.OAUTH_JWKS) : undefined,
      cookieKeys: list(e.OAUTH_COOKIE_KEYS),
      metadataHosts: list(e.OAUTH_CLIENT_METADATA_HOSTS),
      metadataCaFile: e.OAUTH_CLIENT_METADATA_CA_FILE,
      registrationLimit: { perIp: e.OAUTH_REGISTRATIONS_PER_IP, windowSeconds: e.OAUTH_REGISTRATION_WINDOW_SECONDS },
    },
    mcp: { allowedHosts: list(e.MCP_ALLOWED_HOSTS), allowedOrigins: list(e.MCP_ALLOWED_ORIGINS), directToolCalls: e.MCP_DIRECT_TOOL_CALLS },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM, sweepIntervalMs: e.MAIL_SWEEP_INTERVAL_MS },
    updates: { fanOutBatchSize: e.UPDATE_FANOUT_BATCH_SIZE, mailWindowSeconds: e.UPDATE_MAIL_WINDOW_SECONDS },
    quotas: {
      draftsInFlight: e.DRAFTS_MAX_IN_FLIGHT,
      draftsPerHour: e.DRAFTS_MAX_PER_HOUR,
      updatesPerListingPerHour: e.UPDATES_MAX_PER_LISTING_PER_HOUR,
    },
    devMailbox: e.DEV_MAILBOX ?? (isLoopbackUrl(baseUrl) && !e.SMTP_URL && e.NODE_ENV !== 'production'),
    signin: {
      perEmail: e.SIGNIN_MAX_FAILURES_PER_EMAIL,
      perIp: e.SIGNIN_MAX_FAILURES_PER_IP,
      windowSeconds: e.SIGNIN_WINDOW_SECONDS,
      maxDelaySeconds: e.SIGNIN_MAX_DELAY_SECONDS,
    },
    claims: {
      dnsServers: dnsServers(e.CLAIM_DNS_SERVERS),
      schedule: checkSchedule(e.CLAIM_CHECK_SCHEDULE),
      lifetimeMs: duration('CLAIM_LIFETIME', e.CLAIM_LIFETIME),
      verifyIntervalMs: duration('CLAIM_VERIFY_MIN_INTERVAL', e.CLAIM_VERIFY_MIN_INTERVAL),
    },
    orders: orderConfig(e, baseUrl),
    webhooks: webhookConfig(e),
    workflowStarts: workflowStartConfig(e),
    checkOutputs: e.CHECK_OUTPUTS,
  };
}

export interface RegistrationLimit {
  /** Registrations per client address within the window (offices and agents behind NAT share one). */
  perIp: number;
  windowSeconds: number;
}

export interface SigninLimits {
  /**
   * Failed attempts on one email address within the window: from one client address, then 429
   * for that address; from all addresses together, then every attempt on it is slowed down.
   */
  perEmail: number;
  /** Failed attempts per client address within the window (higher: offices share an address). */
  perIp: number;
  windowSeconds: number;
  /** Longest slow-down of an attempt on an email address with many failures. */
  maxDelaySeconds: number;
}

/** Per-account limits on work that costs us or third parties (crawls, follower mail). */
export interface QuotaSettings {
  /** Drafts of one account still crawling or drafting. */
  draftsInFlight: number;
  /** Drafts one account may create per hour. */
  draftsPerHour: number;
  /** Updates one listing may post per hour. */
  updatesPerListingPerHour: number;
}

/** Limits and switches for one crawl; defaults come from src/config.ts. */
export interface CrawlOptions {
  /** Allow private, loopback, link-local and other special-use addresses (dev and tests only). */
  allowPrivateNetworks: boolean;
  /** Per-request timeout in milliseconds (connect + headers + body). */
  timeoutMs: number;
  /** Largest accepted response body in bytes; a larger page fails the request. */
  maxBytes: number;
  /** Most pages fetched in one crawl, the home page included. */
  maxPages: number;
  /** Most redirects followed for one request. */
  maxRedirects: number;
  /** User-Agent sent with every request and matched against robots.txt. */
  userAgent: string;
}
