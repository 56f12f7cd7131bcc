import { TtlCache } from '../../cache/ttl-cache.ts';
import type { PlacedListing } from '../orders/placements.ts';
import type { CategoryCount, LaunchedListing, PublishedUpdate, ScheduledLaunch, SitemapEntry } from './directory.ts';

/**
 * What the public browse pages reuse within one api process, each for `ttlMs` (BROWSE_CACHE_TTL_MS): counts,
 * coming launches, feeds and the sitemap change slowly and no visitor action changes them at
 * once (votes, which do, are never cached here). Built once by createServices.
 */
export function createBrowseCaches(ttlMs: number) {
  // Feeds, calendars and sitemap files tell clients to keep them 5 minutes (Cache-Control
  // max-age=300, src/web/pages/feeds.ts and seo.ts): a process keeps them as long, and rebuilds a
  // 10,000-listing sitemap every 5 minutes rather than every 10 seconds.
  const documentTtlMs = ttlMs === 0 ? 0 : Math.max(ttlMs, 300_000);
  return {
    categoryListings: new TtlCache<(PlacedListing & { placed: boolean })[]>({ ttlMs, maxEntries: 500, serveStale: true }),
    categoryCounts: new TtlCache<CategoryCount[]>({ ttlMs, maxEntries: 100, serveStale: true }),
    scheduled: new TtlCache<ScheduledLaunch[]>({ ttlMs, maxEntries: 100, serveStale: true }),
    launches: new TtlCache<LaunchedListing[]>({ ttlMs, maxEntries: 500, serveStale: true }),
    updates: new TtlCache<PublishedUpdate[]>({ ttlMs, maxEntries: 100, serveStale: true }),
    sitemap: new TtlCache<SitemapEntry[]>({ ttlMs: documentTtlMs, maxEntries: 100, serveStale: true }),
    /** Rendered documents (sitemap files, feeds, calendars) by key; null: no such document. */
    documents: new TtlCache<string | null>({ ttlMs: documentTtlMs, maxEntries: 1_000, serveStale: true }),
    /** Sitemap files as sent: the XML, its gzip and its brotli (crawlers ask for compression); null: no such file. */
    sitemapFiles: new TtlCache<{ plain: Buffer; gzip: Buffer; br: Buffer } | null>({
      ttlMs: documentTtlMs,
      maxEntries: 1_000,
      serveStale: true,
    }),
  };
}

export type BrowseCaches = ReturnType<typeof createBrowseCaches>;
