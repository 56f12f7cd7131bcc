import {
  categoryCounts,
  latestUpdates,
  listingMakers,
  recentLaunches,
  scheduledLaunches,
  sitemapEntries,
  type CategoryCount,
  type LaunchedListing,
  type Maker,
  type PublishedUpdate,
  type ScheduledLaunch,
  type SitemapEntry,
} from '../../domain/browse/directory.ts';
import { addWeeks, isoWeekStart } from '../../workflows/contracts/weeks.ts';
import type { OperationContext } from '../operation.ts';

/**
 * What the public browse pages, feeds and the sitemap read (no operation returns these lists):
 * through the process's browse caches, keyed by site.
 */

export type {
  CategoryCount,
  LaunchedListing,
  ListingCard,
  Maker,
  PublishedUpdate,
  ScheduledLaunch,
  SitemapEntry,
} from '../../domain/browse/directory.ts';

type Ctx = Pick<OperationContext, 'db' | 'site' | 'caches'>;

/** Every category with its count of live listings on the request's site. */
export function categoriesWithCounts(c: Ctx): Promise<CategoryCount[]> {
  return c.caches.browse.categoryCounts.get(String(c.site.id), () => categoryCounts(c.db, c.site.id));
}

/** Launches scheduled in the `weeks` weeks after this one (next Monday on). */
export function comingLaunches(c: Ctx & Pick<OperationContext, 'clock'>, weeks: number): Promise<ScheduledLaunch[]> {
  const next = addWeeks(isoWeekStart(c.clock.now()), 1);
  return c.caches.browse.scheduled.get(`${c.site.id}:${next}:${weeks}`, () =>
    scheduledLaunches(c.db, c.site.id, next, addWeeks(next, weeks)),
  );
}

/** The latest live listings by go-live time (newest first), optionally of one category. */
export function launchedListings(c: Ctx, limit: number, category?: string): Promise<LaunchedListing[]> {
  return c.caches.browse.launches.get(`${c.site.id}:${category ?? ''}:${limit}`, () => recentLaunches(c.db, c.site.id, limit, category));
}

/** The latest owners' updates of live listings on the site, newest first. */
export function siteUpdates(c: Ctx, limit: number): Promise<PublishedUpdate[]> {
  return c.caches.browse.updates.get(`${c.site.id}:${limit}`, () => latestUpdates(c.db, c.site.id, limit));
}

/** A listing's latest updates (uncached: its owner expects to see a new one at once). */
export function updatesOfListing(c: Pick<OperationContext, 'db' | 'site'>, listingId: number, limit: number): Promise<PublishedUpdate[]> {
  return latestUpdates(c.db, c.site.id, limit, listingId);
}

/** The makers shown on a listing page. */
export function makersOf(c: Pick<OperationContext, 'db'>, listingId: number): Promise<Maker[]> {
  return listingMakers(c.db, listingId);
}

/** Every public page of the request's site for the sitemap. */
export function sitemapOf(c: Ctx): Promise<SitemapEntry[]> {
  return c.caches.browse.sitemap.get(String(c.site.id), () => sitemapEntries(c.db, c.site.id));
}
