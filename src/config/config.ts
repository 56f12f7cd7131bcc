import type { JsonWebKey } from 'node:crypto';
import path from 'node:path';
import type { z } from 'zod';
import type { SearchSettings } from '../search/engines.ts';
import { EnvSchema } from './env.ts';
import { orderConfig, type OrderConfig } from './orders.ts';
import { socialSignInConfig, type SocialSignInConfig } from './social-sign-in.ts';
import { webhookConfig, type WebhookConfig } from './webhooks.ts';
import { workflowStartConfig, type WorkflowStartConfig } from './workflow-starts.ts';

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
  cache: {
    catalogTtlMs: number;
    leaderboardTtlMs: number;
    browseTtlMs: number;
    pageTtlMs: number;
    personalSlots: boolean;
    peopleKept: number;
  };
  /** URLs per sitemap file (SITEMAP_URLS_PER_FILE). */
  sitemapUrlsPerFile: number;
  /** What visitors' public pages allow shared caches (PUBLIC_PAGE_S_MAXAGE, PUBLIC_PAGE_STALE_SECONDS). */
  publicPages: { sMaxAgeSeconds: number; staleSeconds: number };
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
  comments: CommentSettings;
  /** The weekly newsletter (docs/newsletter.md). */
  newsletter: NewsletterSettings;
  /** Per-account limits of create_draft and post_listing_update (429 quota_exceeded). */
  quotas: QuotaSettings;
  /** The /dev/mailbox pages: DEV_MAILBOX, else only on a loopback BASE_URL without SMTP, outside production. */
  devMailbox: boolean;
  signin: SigninLimits;
  /** Web sessions of people holding a staff role: idle and absolute lifetimes (STAFF_SESSION_*). */
  staffSessions: { idleMs: number; absoluteMs: number };
  claims: ClaimSettings;
  /** See CHECK_OUTPUTS. */
  checkOutputs: boolean;
  /** Checkout, promo limits and the payment provider (see orders.ts). */
  orders: OrderConfig;
  /** Owners' webhooks: retry schedule and redelivery limit (see webhooks.ts). */
  webhooks: WebhookConfig;
  /** Workflow starts recorded by writes: the dispatchers' sweep, lease and retries (see workflow-starts.ts). */
  workflowStarts: WorkflowStartConfig;
  /** "Continue with GitHub / Google": the configured providers (see social-sign-in.ts). */
  socialSignIn: SocialSignInConfig;
}

/** The weekly newsletter's sending pace, bounce address and subscribe limits. */
export interface NewsletterSettings {
  batchSize: number;
  perMinute: number;
  /** Envelope sender of newsletter mail; null: the From address. */
  bounceAddress: string | null;
  confirmResendMinutes: number;
  confirmHours: number;
  subscribesPerIpPerHour: number;
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
    search: {
      engine: e.SEARCH_ENGINE,
      cacheTtlMs: e.SEARCH_CACHE_TTL_MS,
      openSearch: {
        url: (e.OPENSEARCH_URL ?? `http://127.0.0.1:${e.OPENSEARCH_PORT}`).replace(/\/+$/, ''),
        embedded: e.OPENSEARCH_URL === undefined,
        port: e.OPENSEARCH_PORT,
        alias: e.OPENSEARCH_INDEX,
      },
    },
    cache: {
      catalogTtlMs: e.CATALOG_CACHE_TTL_MS,
      leaderboardTtlMs: e.LEADERBOARD_CACHE_TTL_MS,
      browseTtlMs: e.BROWSE_CACHE_TTL_MS,
      pageTtlMs: e.PAGE_CACHE_TTL_MS,
      personalSlots: e.PERSONAL_PAGE_SLOTS,
      peopleKept: e.PEOPLE_KEPT,
    },
    sitemapUrlsPerFile: e.SITEMAP_URLS_PER_FILE,
    publicPages: { sMaxAgeSeconds: e.PUBLIC_PAGE_S_MAXAGE, staleSeconds: e.PUBLIC_PAGE_STALE_SECONDS },
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
    comments: {
      holdNewAccountsHours: e.COMMENTS_HOLD_NEW_ACCOUNTS_HOURS,
      maxLinks: e.COMMENTS_MAX_LINKS,
      perAccountPerHour: e.COMMENTS_PER_ACCOUNT_PER_HOUR,
      perNetworkPerHour: e.COMMENTS_PER_NETWORK_PER_HOUR,
    },
    newsletter: {
      batchSize: e.NEWSLETTER_BATCH_SIZE,
      perMinute: e.NEWSLETTER_PER_MINUTE,
      bounceAddress: e.NEWSLETTER_BOUNCE_ADDRESS ?? null,
      confirmResendMinutes: e.NEWSLETTER_CONFIRM_RESEND_MINUTES,
      confirmHours: e.NEWSLETTER_CONFIRM_HOURS,
      subscribesPerIpPerHour: e.NEWSLETTER_SUBSCRIBES_PER_IP_PER_HOUR,
    },
    quotas: {
      draftsInFlight: e.DRAFTS_MAX_IN_FLIGHT,
      draftsPerHour: e.DRAFTS_MAX_PER_HOUR,
      updatesPerListingPerHour: e.UPDATES_MAX_PER_LISTING_PER_HOUR,
    },
    devMailbox: e.DEV_MAILBOX ?? (isLoopbackUrl(baseUrl) && !e.SMTP_URL && e.NODE_ENV !== 'production'),
    staffSessions: { idleMs: e.STAFF_SESSION_IDLE_MINUTES * 60_000, absoluteMs: e.STAFF_SESSION_HOURS * 3_600_000 },
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
    socialSignIn: socialSignInConfig(e),
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

/** The spam rules of the discussion (src/domain/comments). */
export interface CommentSettings {
  /** Accounts younger than this have their comments held for review; 0: none. */
  holdNewAccountsHours: number;
  maxLinks: number;
  perAccountPerHour: number;
  perNetworkPerHour: number;
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

/** Limits and switches for one crawl; defaults come from src/config/config.ts. */
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
