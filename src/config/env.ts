import { z } from 'zod';
import { ORDER_ENV } from './orders.ts';
import { SOCIAL_SIGN_IN_ENV } from './social-sign-in.ts';
import { WEBHOOK_ENV } from './webhooks.ts';
import { WORKFLOW_START_ENV } from './workflow-starts.ts';

// The one schema of the environment: every variable with its default and what it does.
// loadConfig() (config.ts) parses it; docs/configuration.md is generated from it
// (`npm run docs:config`, checked by test/docs/configuration.test.ts).
const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

export const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000).describe('HTTP port of the Koa app (REST, MCP, OAuth, web pages).'),
  HOST: z.string().default('127.0.0.1').describe('Interface the app listens on (`0.0.0.0` in containers).'),
  TRUST_PROXY_HOPS: z.coerce
    .number()
    .int()
    .min(0)
    .max(10)
    .default(0)
    .describe(
      'Reverse proxies in front of the app that append to X-Forwarded-For (0: none, the socket is the client). With 1 (one proxy or TLS terminator) or more, the client address (sign-in limits), scheme (Secure OAuth cookies) and host come from the X-Forwarded-* headers; only the last N X-Forwarded-For entries are believed.',
    ),
  BASE_URL: z
    .url()
    .optional()
    .describe('Public origin of the service (links, OpenAPI servers, OAuth issuer). Unset: http://localhost:$PORT.'),
  DATABASE_URL: z.string().optional().describe('An external PostgreSQL. Unset: the embedded one under DATA_DIR.'),
  TEMPORAL_ADDRESS: z.string().optional().describe('An external Temporal frontend (host:7233). Unset: the embedded dev server.'),
  TEMPORAL_NAMESPACE: z.string().default('default').describe('Temporal namespace of the workflows.'),
  TEMPORAL_PORT: z.coerce.number().int().default(7233).describe('Port of the embedded Temporal dev server.'),
  TEMPORAL_UI_PORT: z.coerce.number().int().default(8233).describe("Port of the embedded Temporal dev server's UI."),
  METRICS_PORT: z.coerce
    .number()
    .int()
    .min(1)
    .max(65535)
    .optional()
    .describe(
      'Port of GET /metrics (Prometheus) of an api process, on HOST (see docs/operations.md, Metrics). Never PORT. Unset: no metrics endpoint.',
    ),
  TEMPORAL_METRICS_PORT: z.coerce
    .number()
    .int()
    .min(1)
    .max(65535)
    .optional()
    .describe("Port where a worker process exports the Temporal SDK's own metrics for Prometheus. Unset: off."),
  SHUTDOWN_GRACE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(600_000)
    .default(25_000)
    .describe(
      'On SIGTERM/SIGINT: how long requests in flight and running activities get to finish (new connections are refused at once); then they are cut off, activities see cancellation and Temporal retries them elsewhere.',
    ),
  TEMPORAL_UI_URL: z
    .url()
    .optional()
    .describe(
      "The Temporal UI operators open; flows:stuck links there. Unset: the embedded dev server's UI, http://localhost:$TEMPORAL_UI_PORT.",
    ),
  EMBEDDED_PG_PORT: z.coerce.number().int().default(54329).describe('Port of the embedded PostgreSQL.'),
  DATA_DIR: z.string().default('.data').describe('Where the embedded PostgreSQL, the Temporal state and generated keys live.'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino level (silent ... trace); logs are JSON on stdout.'),
  SEARCH_ENGINE: z
    .enum(['memory', 'postgres', 'opensearch'])
    .default('memory')
    .describe(
      'What answers search_listings: `memory`, an index in each api process kept in step with PostgreSQL before every search; `postgres`, the SQL (the reference); or `opensearch`, one OpenSearch index every api process asks, fed by a worker; see docs/search.md.',
    ),
  OPENSEARCH_URL: z
    .string()
    .url()
    .optional()
    .describe(
      'The OpenSearch of SEARCH_ENGINE=opensearch (http://host:9200). Unset: `npm start` runs a node of its own on OPENSEARCH_PORT.',
    ),
  OPENSEARCH_PORT: z.coerce
    .number()
    .int()
    .default(9200)
    .describe('Port of the OpenSearch node `npm start` runs when OPENSEARCH_URL is unset.'),
  OPENSEARCH_INDEX: z
    .string()
    .regex(/^[a-z][a-z0-9_-]{0,60}$/)
    .default('listings')
    .describe('The alias searches read in OpenSearch; each build of the index is a physical index named after it and its time.'),
  SEARCH_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(10_000)
    .describe('How long one api process reuses a search result with SEARCH_ENGINE=postgres; 0 turns the cache off.'),
  CATALOG_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(1_000)
    .describe('How long one api process reuses the product list and prices; 0 turns the cache off.'),
  LEADERBOARD_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(1_000)
    .describe(
      'How long one api process reuses a get_community_leaderboard answer; 0 turns the cache off (the /launches page never uses it).',
    ),
  BROWSE_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(10_000)
    .describe(
      'How long one api process reuses category counts, coming launches and category pages (feeds, calendars and the sitemap: 5 minutes, as their Cache-Control says, or this if longer); 0 turns it off.',
    ),
  PAGE_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(10_000)
    .describe(
      'How long one api process sends visitors without a session its copy of a public page (/, /launches, listings, categories, the sitemap) before rendering it again (the aged copy is sent meanwhile); a vote, an edit or an unlisting in any api process makes every api process forget the pages it changes (change notices, docs/operations.md); 0 turns it off.',
    ),
  PERSONAL_PAGE_SLOTS: bool
    .default(true)
    .describe(
      "A signed-in person's front page, /launches and listing page are the kept visitors' copy with their own parts (header links and unread count, vote buttons, follow, claim and comment forms) put in its marked slots, from their state kept per process (PEOPLE_KEPT) or read in one query (src/web/personal-slots.ts); false renders the whole page for them.",
    ),
  PEOPLE_KEPT: z.coerce
    .number()
    .int()
    .min(0)
    .default(20_000)
    .describe(
      "How many signed-in people one api process keeps the sessions and own state of (votes, follows, owned listings, comment votes, unread count), so their pages need no query; each person's entry is forgotten at the commit of any write to it (change notices sent by triggers), and nothing is kept while the notice connection is down; 0 reads them on every request.",
    ),
  PUBLIC_PAGE_S_MAXAGE: z.coerce
    .number()
    .int()
    .min(0)
    .default(30)
    .describe(
      'Seconds a CDN or caching proxy may keep a public page sent to a visitor without a session (its `s-maxage`; browsers always ask again, `max-age=0`, and get a 304 by ETag when nothing changed). A vote or an edit reaches visitors behind such a cache within this plus PUBLIC_PAGE_STALE_SECONDS. Signed-in pages are `private, no-store` whatever this says.',
    ),
  PUBLIC_PAGE_STALE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(60)
    .describe(
      'Seconds past PUBLIC_PAGE_S_MAXAGE a CDN or caching proxy may still send its aged copy of a public page while it fetches the next (`stale-while-revalidate`); 0 leaves it out.',
    ),
  SITEMAP_URLS_PER_FILE: z.coerce
    .number()
    .int()
    .min(1)
    .max(50_000)
    .default(50_000)
    .describe("URLs per sitemap file; beyond it /sitemap.xml is an index of /sitemaps/{n}.xml (the protocol's limit is 50,000)."),
  CRAWL_ALLOW_PRIVATE_NETWORKS: bool
    .default(false)
    .describe('Lets the crawler reach private and loopback addresses: development and tests only.'),
  CRAWL_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000).describe('Per-request crawl timeout (connect, headers and body).'),
  CRAWL_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(2_000_000)
    .describe('Largest page the crawler accepts; a larger page fails the request.'),
  CRAWL_MAX_PAGES: z.coerce
    .number()
    .int()
    .min(1)
    .max(20)
    .default(5)
    .describe('Pages per crawl (the home page, then about, pricing, FAQ, contact...).'),
  MCP_ALLOWED_HOSTS: z
    .string()
    .default('')
    .describe("Extra Host values /mcp (and /dev/mailbox) answer to (comma-separated), e.g. behind a proxy; BASE_URL's host always is one."),
  MCP_ALLOWED_ORIGINS: z
    .string()
    .default('')
    .describe("Browser origins allowed to call /mcp (comma-separated; `*` for any); BASE_URL's origin always is one."),
  MCP_DIRECT_TOOL_CALLS: bool
    .default(true)
    .describe(
      "The MCP fast paths: answer plain tools/call requests (every protocol revision) without the SDK's per-request server, and replay the SDK's kept answers to initialize, server/discover, tools/list and ping (the same bytes, checked by differential tests; see npm run bench:mcp; src/mcp/direct-call.ts, replayed-answers.ts); false sends every request through the SDK.",
    ),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^/]+/, 'Must be an smtp:// or smtps:// URL')
    .optional()
    .describe(
      'Outgoing mail server (smtp://user:pass@host:587 or smtps://..., credentials in the URL). Unset: mail stays in the outbox table.',
    ),
  MAIL_FROM: z.string().min(3).default('Listing Directory <no-reply@localhost>').describe('Sender of every mail.'),
  MAIL_SWEEP_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(10_000)
    .describe('How often each worker sends queued mail that no workflow delivered, and retries that are due.'),
  UPDATE_FANOUT_BATCH_SIZE: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(100)
    .describe('Followers told per activity call when a listing update fans out.'),
  NEWSLETTER_BATCH_SIZE: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(100)
    .describe('Newsletter mails queued and sent per batch (one activity call); keep it within what the mail relay accepts at once.'),
  NEWSLETTER_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(600)
    .describe(
      "Newsletter mails sent per minute at most: the workflow waits between batches (on Temporal's clock) to keep to the relay's rate.",
    ),
  NEWSLETTER_BOUNCE_ADDRESS: z
    .email()
    .optional()
    .describe(
      'Envelope sender (Return-Path) of newsletter mail, where bounces and complaints go; mark such an address bounced with `admin newsletter:bounced` (docs/newsletter.md). Unset: the MAIL_FROM address.',
    ),
  NEWSLETTER_CONFIRM_RESEND_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(15)
    .describe('A second subscribe of an unconfirmed address re-sends the confirmation mail at most once per this many minutes.'),
  NEWSLETTER_CONFIRM_HOURS: z.coerce.number().int().min(1).default(72).describe('How long a newsletter confirmation link works.'),
  NEWSLETTER_SUBSCRIBES_PER_IP_PER_HOUR: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .describe('Newsletter subscribe requests one client address may make per hour (429 beyond).'),
  DRAFTS_MAX_IN_FLIGHT: z.coerce
    .number()
    .int()
    .min(1)
    .default(3)
    .describe("Drafts of one account crawling or drafting at a time (each crawls someone's website)."),
  DRAFTS_MAX_PER_HOUR: z.coerce.number().int().min(1).default(20).describe('Drafts one account may create per hour.'),
  UPDATES_MAX_PER_LISTING_PER_HOUR: z.coerce
    .number()
    .int()
    .min(1)
    .default(6)
    .describe('Updates one listing may post per hour (each tells every follower).'),
  UPDATE_MAIL_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(3600)
    .describe('A follower gets at most one mail per listing per window; updates posted meanwhile arrive in one digest when it ends.'),
  COMMENTS_HOLD_NEW_ACCOUNTS_HOURS: z.coerce
    .number()
    .int()
    .min(0)
    .default(24)
    .describe(
      "Comments of accounts younger than this many hours are held for the site team's review (their author sees them waiting; nobody else does). 0: none held.",
    ),
  COMMENTS_MAX_LINKS: z.coerce.number().int().min(0).default(3).describe('Links (http(s) addresses) one comment may carry.'),
  COMMENTS_PER_ACCOUNT_PER_HOUR: z.coerce
    .number()
    .int()
    .min(1)
    .default(30)
    .describe('Comments and replies one account may post per hour (429 rate_limited with Retry-After).'),
  COMMENTS_PER_NETWORK_PER_HOUR: z.coerce
    .number()
    .int()
    .min(1)
    .default(120)
    .describe('Comments and replies posted from one client network (IPv4 /24, IPv6 /48) per hour, all accounts together.'),
  OAUTH_JWKS: z
    .string()
    .optional()
    .describe(
      'OAuth signing keys as a JWKS JSON, `{"keys":[<private EC P-256 JWK>]}`; set it (and OAUTH_COOKIE_KEYS) when several api machines serve OAuth. Unset: generated into DATA_DIR/oauth-keys.json.',
    ),
  OAUTH_COOKIE_KEYS: z
    .string()
    .default('')
    .describe("Comma-separated secrets of the authorization server's cookies. Empty: generated into DATA_DIR."),
  OAUTH_CLIENT_METADATA_HOSTS: z
    .string()
    .default('')
    .describe(
      'Development and tests only: hosts (host:port) whose client ID metadata documents may be fetched on loopback or private addresses.',
    ),
  OAUTH_CLIENT_METADATA_CA_FILE: z
    .string()
    .optional()
    .describe('Extra CA (PEM file) trusted when fetching from OAUTH_CLIENT_METADATA_HOSTS.'),
  OAUTH_REGISTRATIONS_PER_IP: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .describe(
      'Open dynamic client registrations (POST /oauth/register) per client address within the window; more get 429 with Retry-After.',
    ),
  OAUTH_REGISTRATION_WINDOW_SECONDS: z.coerce.number().int().min(1).default(3600).describe('The window of OAUTH_REGISTRATIONS_PER_IP.'),
  NODE_ENV: z.string().optional().describe('`production` turns development conveniences off (/dev/mailbox, the test payment provider).'),
  DEV_MAILBOX: bool
    .optional()
    .describe(
      'The /dev/mailbox pages show every queued mail, reset links included: never on a public host. true forces them on (a private staging host), false off. Unset: on only when BASE_URL is a loopback address (localhost, 127.0.0.0/8, [::1]), SMTP_URL is unset and NODE_ENV is not production. Start-up says whether it is on.',
    ),
  SIGNIN_MAX_FAILURES_PER_EMAIL: z.coerce
    .number()
    .int()
    .min(1)
    .default(5)
    .describe(
      'Failed web sign-ins on one email from one client address within the window before 429. Failures on one email from all addresses together never block it; past this many, each attempt is slowed (1 s, 2 s, 4 s ...).',
    ),
  SIGNIN_MAX_FAILURES_PER_IP: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .describe('Failed web sign-ins from one client address within the window before 429 (higher: offices share an address).'),
  SIGNIN_WINDOW_SECONDS: z.coerce.number().int().min(1).default(900).describe('Window of the sign-in limits.'),
  SIGNIN_MAX_DELAY_SECONDS: z.coerce
    .number()
    .min(0)
    .max(60)
    .default(10)
    .describe('Longest slow-down of a sign-in attempt on an email with many failures from everywhere (it is never blocked).'),
  STAFF_SESSION_IDLE_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(60)
    .describe(
      'A web session of a person holding any staff role ends after this many minutes unused (everyone else: 30 days); the console then asks for sign-in again.',
    ),
  STAFF_SESSION_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .default(12)
    .describe(
      'A web session of a person holding any staff role ends this many hours after sign-in, however active (everyone else: 90 days).',
    ),
  CLAIM_DNS_SERVERS: z
    .string()
    .default('')
    .describe(
      "DNS servers (IP address with an optional :port, comma-separated) that claim checks ask for TXT records. Empty: the system's.",
    ),
  CLAIM_CHECK_SCHEDULE: z
    .string()
    .default('1m/5m,5m/1h,30m/24h,4h/7d')
    .describe("When a claim's workflow checks on its own: every/until pairs, each until counted from the claim's start."),
  CLAIM_LIFETIME: z
    .string()
    .default('7d')
    .describe('How long a claim stays pending before it expires (also the life of its emailed links).'),
  CLAIM_VERIFY_MIN_INTERVAL: z
    .string()
    .default('10s')
    .describe('Least time between two requested checks of one claim (verify_claim, "Check now").'),
  ...ORDER_ENV,
  ...WEBHOOK_ENV,
  ...WORKFLOW_START_ENV,
  ...SOCIAL_SIGN_IN_ENV,
  CHECK_OUTPUTS: bool
    .default(false)
    .describe(
      'Check every operation result against its output schema; a mismatch fails the call with 500 output_invalid. Every test env turns it on.',
    ),
});
