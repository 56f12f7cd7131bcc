import type { Config } from './config.ts';
import { createApiKeyCache } from './auth/api-keys.ts';
import { createRevokedGrantsCache } from './auth/oauth/grants.ts';
import { createProductsCache } from './domain/catalog/products.ts';
import { createWeekRanksCache } from './domain/launches/badges.ts';
import { createOwnedListingsCache } from './domain/orders/items.ts';
import { createBrowseCaches } from './domain/browse/browse-caches.ts';
import { createBillboardCache } from './domain/orders/placements.ts';
import { createLeaderboardCache } from './domain/ranking/leaderboard.ts';
import { createSitesCache } from './domain/sites/sites.ts';
import { VisitorPageCache } from './web/visitor-page-cache.ts';

/**
 * The in-process caches of one process, built once by createServices with their options and
 * handed to whoever reads through them (two Services in one process, as in tests, share nothing).
 */
export function createCaches(config: Pick<Config, 'cache'>) {
  return {
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
