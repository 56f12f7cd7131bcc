import { pino, type Logger } from 'pino';
import { createAuthenticator, type Authenticate } from './auth/credentials.ts';
import { createAppSecrets, type AppSecrets } from './auth/secrets.ts';
import { loadOAuthKeys, type OAuthKeys } from './auth/oauth/keys.ts';
import type { Config } from './config/config.ts';
import { createDb, type Db } from './db/knex.ts';
import { listenForChanges, type ChangeListener, type ChangeNotice } from './db/notify.ts';
import type { SearchEngine, WorkflowStarter } from './domain/ports.ts';
import { createMailer, type Mailer } from './mail/smtp.ts';
import type { Dispatcher } from 'undici';
import { createBadgeAgent } from './domain/launches/badge-fetch.ts';
import { createMetrics, type Metrics } from './metrics/registry.ts';
import { createSearchEngine } from './search/engines.ts';
import { createPaymentProvider, type ConfiguredProvider } from './payments/index.ts';
import { createWorkflowStarter } from './temporal/client.ts';
import { createWorkflowDispatcher, type WorkflowDispatcher } from './temporal/workflow-dispatcher.ts';
import { createPageCounters, type PageCounters } from './domain/stats/page-counters.ts';
import type { MediaStore } from './domain/media/media-port.ts';
import { createPostgresMediaStore } from './media/postgres-store.ts';
import { systemClock, type Clock } from './domain/time/clock.ts';
import { createApiKeyCache } from './auth/api-keys.ts';
import { createRevokedGrantsCache } from './auth/oauth/grants.ts';
import { createProductsCache } from './domain/catalog/products.ts';
import { createWeekRanksCache } from './domain/launches/badges.ts';
import { createOwnedListingsCache } from './domain/orders/items.ts';
import { createBrowseCaches } from './domain/browse/browse-caches.ts';
import { createBillboardCache } from './domain/orders/placements.ts';
import { createLeaderboardCache } from './domain/ranking/leaderboard.ts';
import { createSitesCache } from './domain/sites/sites.ts';
import { forgetChanged, VisitorPageCache } from './web/visitor-page-cache.ts';
import { PeopleCache } from './cache/people-cache.ts';
import type { SessionRow } from './auth/sessions.ts';
import type { PersonState } from './operations/read-models/person-state.ts';

/** Long-lived handles of one process, created once and passed down. */
export interface Services {
  config: Config;
  db: Db;
  workflows: WorkflowStarter;
  /** Makes the workflow starts writes record (right after their commit, and what is left: run() in api and worker roles). */
  workflowStarts: WorkflowDispatcher;
  log: Logger;
  /** OAuth signing and cookie keys (environment or data directory). */
  oauthKeys: OAuthKeys;
  /** Bearer token → principal, for REST and MCP. */
  authenticate: Authenticate;
  /** Prometheus series of this process (served on METRICS_PORT). */
  metrics: Metrics;
  /** Answers search_listings and the front page's search (SEARCH_ENGINE), one per process. */
  search: SearchEngine;
  /** The configured payment provider (PAYMENT_PROVIDER); null when payments are not configured (503 where they are needed). */
  payments: ConfiguredProvider | null;
  /** Pooled SMTP mailer; null without SMTP_URL (mail then stays in the outbox). */
  mailer: Mailer | null;
  /** The in-process caches (sites, catalog, leaderboard, billboard, badge ranks, API keys, revoked grants). */
  caches: Caches;
  /** Named server secrets shared through PostgreSQL (the CSRF key). */
  secrets: AppSecrets;
  /** The guarded HTTP agent badge checks fetch owners' pages through. */
  badgeAgent: Dispatcher;
  /** Listing page views and outbound clicks, buffered and written to hourly counters once a second. */
  pageCounters: PageCounters;
  /** Logos, preview images and card images (PostgreSQL), served under /media by every api process. */
  media: MediaStore;
  /** Where time-dependent rules read "now" (the system clock; tests may give a ManualClock). */
  clock: Clock;
  /**
   * Starts listening for the change notices of every process (src/db/notify.ts), which make this
   * one forget what they changed in its caches, kept pages and search index; once, in api roles.
   */
  listenForChanges(): ChangeListener;
  /** Writes what is buffered (the page counters), stops the timers, closes the pools. */
  close(): Promise<void>;
}

/** Choices of the process beyond its config. */
export interface ServiceOptions {
  /** Count listing page views and clicks (launch analytics); off only to measure what counting costs (bench/listing-views.ts). @default true */
  countPageViews?: boolean;
  /** The clock rules read "now" from. @default systemClock */
  clock?: Clock;
}

export interface Endpoints {
  databaseUrl: string;
  temporalAddress: string;
}

export function createLogger(config: Config): Logger {
  return pino({ level: config.logLevel, base: { service: 'listing-directory' } });
}

export function createServices(config: Config, endpoints: Endpoints, log = createLogger(config), options: ServiceOptions = {}): Services {
  const db = createDb(endpoints.databaseUrl);
  const oauthKeys = loadOAuthKeys(config);
  const workflows = createWorkflowStarter({ address: endpoints.temporalAddress, namespace: config.temporal.namespace });
  const mailer = createMailer(config);
  const caches = createCaches(config);
  // Built at the first read: building it loads undici (src/lib/undici.ts), which most processes never use.
  let badgeAgent: Dispatcher | undefined;
  const secrets = createAppSecrets(db);
  const pageCounters = createPageCounters(db, secrets, log, { enabled: options.countPageViews ?? true });
  const workflowStarts = createWorkflowDispatcher({ db, databaseUrl: endpoints.databaseUrl, workflows, config, log });
  const search = createSearchEngine(db, config.search);
  let changes: ChangeListener | undefined;
  return {
    config,
    db,
    workflows,
    workflowStarts,
    log,
    oauthKeys,
    authenticate: createAuthenticator(db, config, oauthKeys, caches),
    metrics: createMetrics(db),
    search,
    payments: createPaymentProvider(db, config),
    mailer,
    caches,
    secrets,
    get badgeAgent() {
      return (badgeAgent ??= createBadgeAgent(config.crawl));
    },
    pageCounters,
    media: createPostgresMediaStore(db),
    clock: options.clock ?? systemClock,
    listenForChanges() {
      return (changes ??= listenForChanges({
        databaseUrl: endpoints.databaseUrl,
        log,
        onNotice: (notice) => forgetNoticed(caches, search, notice),
        onListening: () => {
          forgetNoticed(caches, search, null);
          trustPeople(caches, true);
        },
        onLost: () => trustPeople(caches, false),
      }));
    },
    async close() {
      await changes?.close();
      await pageCounters.close();
      await workflowStarts.stop();
      await workflows.close().catch(() => {});
      mailer?.close();
      await badgeAgent?.close().catch(() => {});
      await db.destroy();
    },
  };
}

/**
 * The in-process caches of one process, built once by createServices with their options and
 * handed to whoever reads through them (two Services in one process, as in tests, share nothing).
 */
export function createCaches(config: Pick<Config, 'cache'>) {
  return {
    /**
     * Signed-in people's sessions and own state (PEOPLE_KEPT), used only while change notices
     * arrive (listenForChanges), each person's forgotten at any write to it.
     */
    sessions: new PeopleCache<string, SessionRow>(config.cache.peopleKept),
    people: new PeopleCache<number, PersonState>(config.cache.peopleKept),
    sites: createSitesCache(),
    /** What a quote reads through (list_products shares the product list). */
    catalog: {
      products: createProductsCache(config.cache.catalogTtlMs),
      ownedListings: createOwnedListingsCache(config.cache.catalogTtlMs),
    },
    leaderboard: createLeaderboardCache(config.cache.leaderboardTtlMs),
    billboard: createBillboardCache(config.cache.catalogTtlMs),
    badgeWeekRanks: createWeekRanksCache(),
    apiKeys: createApiKeyCache(),
    revokedGrants: createRevokedGrantsCache(),
    /** The public browse pages: category counts, coming launches, feeds, the sitemap. */
    browse: createBrowseCaches(config.cache.browseTtlMs),
    /** Public pages as visitors without a session see them, kept PAGE_CACHE_TTL_MS (src/web/page-cache.ts). */
    visitorPages: new VisitorPageCache(config.cache.pageTtlMs),
  };
}

export type Caches = ReturnType<typeof createCaches>;

/**
 * Forgets what a change notice says changed, as the process that made the change forgets it; null
 * (notices may have been missed while the connection was down) forgets everything kept.
 */
export function forgetNoticed(caches: Caches, search: SearchEngine, notice: ChangeNotice | null): void {
  if (notice === null) return forgetEverything(caches, search);
  switch (notice.what) {
    case 'votes':
      search.changed?.();
      return forgetChanged(caches.visitorPages, notice);
    case 'listing':
    case 'listings':
      search.changed?.();
      // `listings` has no slug: every kept page of the site.
      forgetChanged(caches.visitorPages, notice);
      caches.leaderboard.clear();
      caches.catalog.ownedListings.clear();
      for (const cache of Object.values(caches.browse)) cache.clear();
      return;
    case 'site':
      caches.sites.clear();
      return forgetChanged(caches.visitorPages, { site: notice.site });
    case 'api-key':
      return caches.apiKeys.clear();
    case 'search':
      return search.changed?.();
    case 'person':
      caches.sessions.forget(notice.user);
      return caches.people.forget(notice.user);
  }
}

/** People's entries are trusted only while notices arrive: kept across no gap in them. */
function trustPeople(caches: Caches, trusted: boolean): void {
  caches.sessions.trust(trusted);
  caches.people.trust(trusted);
}

function forgetEverything(caches: Caches, search: SearchEngine): void {
  search.changed?.();
  caches.sessions.forget();
  caches.people.forget();
  caches.visitorPages.forget();
  for (const cache of [caches.sites, caches.leaderboard, caches.billboard, caches.badgeWeekRanks, caches.apiKeys, caches.revokedGrants])
    cache.clear();
  for (const cache of [...Object.values(caches.catalog), ...Object.values(caches.browse)]) cache.clear();
}
