import type { Db } from '../../db/knex.ts';
import { profileFacts } from '../founders/profiles.ts';
import { profileMissing, type MissingItem } from '../founders/publish-rules.ts';
import type { ListingRow } from '../listings/listing-row.ts';
import { badgeChecks, UNCHECKED, type BadgeCheckView } from './badge-check.ts';
import { launchPanelUrl } from './owner-notices.ts';
import { queuePositions } from './slots.ts';

/** Statuses of a free listing that still waits for its badge or founder profile. */
export const WAITING_STATUSES: ReadonlySet<string> = new Set(['draft', 'awaiting_profile', 'awaiting_badge']);

/** What the owner's view of a listing adds about its launch. */
export interface LaunchDetails {
  /** 1-based place in its launch week (order of booking); null without a week. */
  queue_position: number | null;
  /** The last badge check. */
  badge: BadgeCheckView;
  /** Set once the badge has been missing beyond the grace period after launch. */
  badge_note: string | null;
  /** What a waiting free listing still needs (empty otherwise). */
  missing: MissingItem[];
}

/** The badge item of `missing`: where to get the snippet and how to ask for a check. */
export function badgeMissingItem(baseUrl: string, listingId: number, check: BadgeCheckView): MissingItem {
  return {
    code: 'badge_missing',
    reason:
      check.status === 'unchecked'
        ? 'Put our badge on your site (get_badges has the snippet), then ask for a check.'
        : `Our badge was not confirmed on your site: ${check.detail ?? check.status}`,
    url: launchPanelUrl(baseUrl, listingId),
    operation: 'recheck_badge',
  };
}

/**
 * Launch details of some listings (of one owner or many), by listing id. Inside a transaction
 * (an event emitted where it happens) the reads run one after the other: one connection runs one
 * query at a time.
 */
export async function launchDetails(db: Db, rows: ListingRow[], baseUrl: string): Promise<Map<number, LaunchDetails>> {
  const ids = rows.map((r) => r.id);
  const reads = [
    () => queuePositions(db, ids),
    () => badgeChecks(db, ids),
    async () => (ids.length ? db('listing_badges').whereIn('listing_id', ids).whereNotNull('grace_notified_at').pluck('listing_id') : []),
  ] as const;
  const [positions, checks, notes] = db.isTransaction
    ? [await reads[0](), await reads[1](), await reads[2]()]
    : await Promise.all([reads[0](), reads[1](), reads[2]()]);
  const noted = new Set<number>(notes);
  const details = new Map<number, LaunchDetails>();
  for (const row of rows) {
    const badge = checks.get(row.id) ?? UNCHECKED;
    details.set(row.id, {
      queue_position: positions.get(row.id) ?? null,
      badge,
      badge_note:
        noted.has(row.id) && badge.missing_since
          ? `Our badge has been missing from your site since ${badge.missing_since.slice(0, 10)}, beyond the grace period.`
          : null,
      missing: await missingFor(db, row, badge, baseUrl),
    });
  }
  return details;
}

async function missingFor(db: Db, row: ListingRow, badge: BadgeCheckView, baseUrl: string): Promise<MissingItem[]> {
  if (row.plan !== 'free' || !WAITING_STATUSES.has(row.status)) return [];
  const profile = row.owner_id === null ? [] : profileMissing(await profileFacts(db, row.owner_id), baseUrl);
  return badge.status === 'present' ? profile : [...profile, badgeMissingItem(baseUrl, row.id, badge)];
}
