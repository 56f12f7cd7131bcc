import type { Dispatcher } from 'undici';
import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/knex.ts';
import type { WorkflowStarter } from '../ports.ts';
import { getOwnedListing, type ListingRow } from '../listings/listings.ts';
import { assertBadgeUrl, claimOwnerCheck, runBadgeCheck, setBadgeUrl, type BadgeCheckView } from './badge-check.ts';
import { advanceFreeListing, chooseFreePlan } from './free-route.ts';
import { WAITING_STATUSES } from './owner-launch.ts';
import type { Clock } from '../time/clock.ts';

/** What the owner's launch actions need; the same for the operations and the web panel. */
export interface LaunchDeps {
  db: Db;
  config: Pick<Config, 'baseUrl' | 'crawl'>;
  workflows: Pick<WorkflowStarter, 'recheckLaunch'>;
  /** The process's guarded agent for badge pages. */
  badgeAgent: Dispatcher;
  clock: Clock;
}

const checkDeps = (deps: LaunchDeps) => ({
  db: deps.db,
  baseUrl: deps.config.baseUrl,
  crawl: deps.config.crawl,
  badgeAgent: deps.badgeAgent,
  clock: deps.clock,
});

/** Key of the site a listing is on (a search attribute of its flow). */
export async function siteKeyOf(db: Db, listing: Pick<ListingRow, 'site_id'>): Promise<string> {
  // Read by primary key: an owner's or an admin's step, not a hot path, and no process cache to hand down.
  return (await db('sites').where({ id: listing.site_id }).first('key'))!.key;
}

/**
 * recheck_badge: checks the owner's page now (one owner check per 10 s per listing); a waiting
 * free listing moves on at once and its flow is woken. `badgeUrl` undefined keeps the page.
 */
export async function recheckBadge(
  deps: LaunchDeps,
  ownerId: number,
  listingId: number,
  badgeUrl?: string | null,
): Promise<BadgeCheckView> {
  const listing = await getOwnedListing(deps.db, ownerId, listingId);
  // Refusals first (bad page, too soon), so a refused call changes nothing.
  if (badgeUrl !== undefined) assertBadgeUrl(listing, badgeUrl);
  await claimOwnerCheck(deps.db, listing.id);
  if (badgeUrl !== undefined) await setBadgeUrl(deps.db, listing, badgeUrl);
  const check = await runBadgeCheck(checkDeps(deps), listing, 'owner');
  // Only a free listing still on its way needs its flow woken; a live one's flow keeps its own weekly checks.
  if (listing.plan === 'free' && WAITING_STATUSES.has(listing.status)) {
    await advanceFreeListing(deps.db, deps.config.baseUrl, listing.id, deps.clock.now());
    await deps.workflows.recheckLaunch(listing.id, await siteKeyOf(deps.db, listing));
  }
  return check;
}

/**
 * choose_free_listing: the free plan, a badge check, as far along the free route as the listing
 * can go now, and its `listing:{id}` flow started (or woken). Queued or live already: unchanged.
 */
export async function chooseFree(deps: LaunchDeps, ownerId: number, listingId: number): Promise<ListingRow> {
  const listing = await chooseFreePlan(deps.db, ownerId, listingId);
  if (listing.status === 'scheduled' || listing.status === 'live') return listing;
  await runBadgeCheck(checkDeps(deps), listing, 'choose_free');
  const moved = (await advanceFreeListing(deps.db, deps.config.baseUrl, listing.id, deps.clock.now())) ?? listing;
  await deps.workflows.recheckLaunch(listing.id, await siteKeyOf(deps.db, listing));
  return moved;
}

/**
 * After the owner's founder profile changed: their free listings waiting on it move on at once
 * and their flows are woken. A flow that cannot be reached now still finds the new
 * state at its next scheduled re-check, so that is no reason to fail the profile update.
 */
export async function wakeProfileWaiters(
  deps: Omit<LaunchDeps, 'config'> & { config: Pick<Config, 'baseUrl'> },
  ownerId: number,
): Promise<void> {
  const waiting: ListingRow[] = await deps.db('listings').where({ owner_id: ownerId, plan: 'free', status: 'awaiting_profile' });
  for (const listing of waiting) {
    const moved = (await advanceFreeListing(deps.db, deps.config.baseUrl, listing.id, deps.clock.now())) ?? listing;
    if (moved.status === listing.status) continue;
    await deps.workflows.recheckLaunch(listing.id, await siteKeyOf(deps.db, listing)).catch(() => {});
  }
}
