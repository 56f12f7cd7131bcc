import type { Dispatcher } from 'undici';
import type { Db } from '../../db/knex.ts';
import { tooManyRequests, unprocessable } from '../../errors/errors.ts';
import type { CrawlOptions } from '../crawl/types.ts';
import { companyKey } from '../company.ts';
import { RateLimitedError, takeCooldown } from '../quotas/rate-limit.ts';
import type { Clock } from '../time/clock.ts';
import { fetchBadge, type BadgeStatus } from './badge-fetch.ts';

/** The last badge check of a listing, as owners see it. */
export interface BadgeCheckView {
  status: 'unchecked' | BadgeStatus;
  checked_at: string | null;
  missing_since: string | null;
  detail: string | null;
}

/** Who asked for a check (kept on every badge_checks row). */
export type CheckTrigger = 'owner' | 'choose_free' | 'schedule' | 'launch' | 'after_launch' | 'admin';

/** Owners may ask for a check at most this often per listing. */
export const OWNER_CHECK_INTERVAL_S = 10;

/** What the views read of a listing_badges row. */
export interface BadgeRow {
  listing_id: number;
  badge_url: string | null;
  status: BadgeCheckView['status'];
  checked_at: Date | null;
  missing_since: Date | null;
  detail: string | null;
}

export interface BadgeCheckDeps {
  db: Db;
  baseUrl: string;
  crawl: CrawlOptions;
  /** The process's guarded agent for badge pages (createBadgeAgent). */
  badgeAgent: Dispatcher;
  /** When a badge went missing is the clock's time: the grace period is measured against it. */
  clock: Clock;
}

/** A listing whose badge was never checked. */
export const UNCHECKED: BadgeCheckView = { status: 'unchecked', checked_at: null, missing_since: null, detail: null };

export function toCheckView(row: BadgeRow | undefined): BadgeCheckView {
  if (!row) return UNCHECKED;
  return {
    status: row.status,
    checked_at: row.checked_at?.toISOString() ?? null,
    missing_since: row.missing_since?.toISOString() ?? null,
    detail: row.detail,
  };
}

/** The badge checks of some listings, by listing id (unchecked ones absent). */
export async function badgeChecks(db: Db, listingIds: number[]): Promise<Map<number, BadgeCheckView>> {
  if (listingIds.length === 0) return new Map();
  const rows: BadgeRow[] = await db('listing_badges').whereIn('listing_id', listingIds);
  return new Map(rows.map((r) => [r.listing_id, toCheckView(r)]));
}

/** The page checked for a listing's badge: the owner's badge_url, else the listing's website. */
export async function badgePageOf(db: Db, listing: { id: number; url: string }): Promise<string> {
  const row = await db('listing_badges').where({ listing_id: listing.id }).first('badge_url');
  return row?.badge_url ?? listing.url;
}

/** Refuses a badge page off the listing's company website (422), before anything is written. */
export function assertBadgeUrl(listing: { url: string }, badgeUrl: string | null): void {
  const company = companyKey(listing.url);
  if (badgeUrl !== null && companyKey(badgeUrl) !== company) {
    throw unprocessable('badge_url_off_domain', `badge_url must be a page of ${company}, the listing's own site.`);
  }
}

/** Sets (or with null clears) the page to check; it must be on the listing's company website. */
export async function setBadgeUrl(db: Db, listing: { id: number; url: string }, badgeUrl: string | null): Promise<void> {
  assertBadgeUrl(listing, badgeUrl);
  await db('listing_badges')
    .insert({ listing_id: listing.id, badge_url: badgeUrl })
    .onConflict('listing_id')
    .merge({ badge_url: badgeUrl });
}

/**
 * Claims the owner's check slot of a listing: at most one owner-triggered check per 10 s, on the
 * shared rate limiter (one atomic upsert, so parallel requests cannot both pass). 429 with Retry-After.
 */
export async function claimOwnerCheck(db: Db, listingId: number): Promise<void> {
  try {
    await takeCooldown(db, 'badge-check', String(listingId), OWNER_CHECK_INTERVAL_S);
  } catch (err) {
    if (!(err instanceof RateLimitedError)) throw err;
    const wait = err.retryAfterSeconds;
    throw tooManyRequests(`The badge of this listing was checked moments ago; ask again in ${wait} s.`, wait);
  }
}

/**
 * Checks a listing's badge now and records the result: a badge_checks row every time, and the
 * listing's badge state: the last result, and missing_since, which starts at the first "missing"
 * after a "present" (or none), survives "inconclusive" answers and ends with a "present".
 */
export async function runBadgeCheck(
  deps: BadgeCheckDeps,
  listing: { id: number; url: string; slug: string },
  trigger: CheckTrigger,
): Promise<BadgeCheckView> {
  const url = await badgePageOf(deps.db, listing);
  const found = await fetchBadge(url, { baseUrl: deps.baseUrl, slug: listing.slug }, deps.crawl, deps.badgeAgent);
  return deps.db.transaction(async (trx) => {
    await trx('badge_checks').insert({
      listing_id: listing.id,
      trigger,
      url,
      final_url: found.finalUrl,
      http_status: found.httpStatus,
      status: found.status,
      detail: found.detail,
      rel: found.rel,
    });
    await trx('listing_badges').insert({ listing_id: listing.id }).onConflict('listing_id').ignore();
    const missingSince =
      found.status === 'present'
        ? null
        : found.status === 'missing'
          ? trx.raw('coalesce(missing_since, ?::timestamptz)', [deps.clock.now()])
          : trx.raw('missing_since');
    const [row] = await trx('listing_badges')
      .where({ listing_id: listing.id })
      .update({
        status: found.status,
        checked_at: trx.fn.now(),
        missing_since: missingSince,
        detail: found.detail,
        // A badge that is back starts a new grace period next time it goes missing.
        grace_notified_at: found.status === 'present' ? null : trx.raw('grace_notified_at'),
      })
      .returning('*');
    return toCheckView(row);
  });
}
