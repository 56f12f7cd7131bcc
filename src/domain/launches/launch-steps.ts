import type { ListingRow } from '../listings/listings.ts';
import { unlist } from '../listings/moderation.ts';
import { runBadgeCheck, type BadgeCheckDeps } from './badge-check.ts';
import { readLaunchSettings } from './launch-settings.ts';
import { tellOwner } from './owner-notices.ts';
import { releaseSlot } from './slots.ts';
import { weekHasStarted } from '../../workflows/contracts/weeks.ts';
import { weekOfText } from '../time/week-words.ts';
import { emitListingEvent } from '../webhooks/emit.ts';

/** Where a listing's launch stands, as the workflow needs it. */
export interface LaunchState {
  status: string;
  plan: 'free' | 'paid' | null;
  launch_week: string | null;
}

/** The state of a listing; a deleted one is `gone`, which ends its flow. */
export const launchStateOf = (row: Pick<ListingRow, 'status' | 'plan' | 'launch_week'> | undefined): LaunchState =>
  row ? { status: row.status, plan: row.plan, launch_week: row.launch_week } : { status: 'gone', plan: null, launch_week: null };

/**
 * Launches a scheduled listing once its week has started: a paid one at once; a free
 * one after a last badge check. Missing then → back to awaiting_badge, the slot released and the
 * owner told; present or inconclusive (their server's trouble is no reason to miss the week) → live.
 */
export async function launchWhenDue(deps: BadgeCheckDeps, listingId: number): Promise<LaunchState> {
  const now = deps.clock.now();
  const row: ListingRow | undefined = await deps.db('listings').where({ id: listingId }).first();
  if (!row || row.status !== 'scheduled' || !row.launch_week || !weekHasStarted(row.launch_week, now.getTime())) return launchStateOf(row);
  const check = row.plan === 'free' ? await runBadgeCheck(deps, row, 'launch') : null;
  return deps.db.transaction(async (trx) => {
    const current: ListingRow | undefined = await trx('listings').where({ id: listingId }).forUpdate().first();
    // Re-aimed (upgraded, rescheduled) while the badge was being checked: the next wake-up decides.
    if (!current || current.status !== 'scheduled' || current.launch_week !== row.launch_week || current.plan !== row.plan)
      return launchStateOf(current);
    if (check?.status === 'missing') {
      await releaseSlot(trx, listingId);
      await tellOwner(trx, deps.baseUrl, listingId, {
        dedupeKey: `launch-missed:${listingId}:${row.launch_week}`,
        subject: 'badge missing, launch postponed',
        message: `${row.name} was due to launch in the ${weekOfText(row.launch_week!)}, but our badge was not on your site (${check.detail}) Put it back and use "Check now": the listing gets the next free week.`,
      });
      const postponed = await update(trx, listingId, { status: 'awaiting_badge', launch_week: null });
      await emitListingEvent(trx, deps.baseUrl, 'badge.missing', listingId, `badge.missing:launch:${listingId}:${row.launch_week}`, {
        badge: { checked_at: check.checked_at, detail: check.detail, launch_postponed: true },
      });
      return launchStateOf(postponed);
    }
    const live = await update(trx, listingId, { status: 'live', live_at: trx.fn.now() });
    await emitListingEvent(trx, deps.baseUrl, 'listing.live', listingId, `listing.live:${listingId}:${row.launch_week}`);
    return launchStateOf(live);
  });
}

/** One check of a live free listing's badge after launch. */
export interface AfterLaunchCheck {
  status: string;
  badge: string;
  /** When the grace period of a missing badge ends (ms since the epoch); null when not missing. */
  graceEndsAtMs: number | null;
}

/**
 * Re-checks a live free listing's badge (the weeks after launch). The owner is told when it goes
 * missing, and again when it stays missing beyond `graceMs`; then the site's after-grace action
 * applies (default: a note only). Paid or no longer live listings are left alone.
 */
export async function afterLaunchCheck(deps: BadgeCheckDeps, listingId: number, graceMs: number): Promise<AfterLaunchCheck> {
  const row: ListingRow | undefined = await deps.db('listings').where({ id: listingId }).first();
  if (row?.plan !== 'free' || row.status !== 'live') return { status: row?.status ?? 'gone', badge: 'unchecked', graceEndsAtMs: null };
  const check = await runBadgeCheck(deps, row, 'after_launch');
  const now = deps.clock.now();
  if (check.status !== 'missing') return { status: row.status, badge: check.status, graceEndsAtMs: null };
  const since = check.missing_since!;
  const graceEndsAtMs = Date.parse(since) + graceMs;
  return deps.db.transaction(async (trx) => {
    const days = Math.round(graceMs / 86_400_000);
    await tellOwner(trx, deps.baseUrl, listingId, {
      dedupeKey: `badge-missing:${listingId}:${since}`,
      subject: 'our badge is missing from your site',
      message: `Our badge is no longer on your site (${check.detail}) Free launches keep it for 4 weeks after launch; please put it back within ${days} days.`,
    });
    await emitListingEvent(trx, deps.baseUrl, 'badge.missing', listingId, `badge.missing:${listingId}:${since}`, {
      badge: {
        checked_at: check.checked_at,
        detail: check.detail,
        missing_since: since,
        grace_ends_at: new Date(graceEndsAtMs).toISOString(),
      },
    });
    const expired = await trx('listing_badges')
      .where({ listing_id: listingId, status: 'missing' })
      .whereNull('grace_notified_at')
      .whereRaw('missing_since <= ?::timestamptz - make_interval(secs => ?)', [now, graceMs / 1000])
      .update({ grace_notified_at: trx.fn.now() })
      .returning('listing_id');
    let status = row.status;
    if (expired.length > 0) {
      const { badge_after_grace } = await readLaunchSettings(trx, row.site_id);
      await tellOwner(trx, deps.baseUrl, listingId, {
        dedupeKey: `badge-grace:${listingId}:${since}`,
        subject: 'badge missing beyond the grace period',
        message:
          badge_after_grace === 'unlist'
            ? `Our badge has been missing from your site since ${since.slice(0, 10)}, longer than the grace period: ${row.name} is unlisted until it is back.`
            : `Our badge has been missing from your site since ${since.slice(0, 10)}, longer than the grace period. This is noted on your listing.`,
      });
      if (badge_after_grace === 'unlist') status = (await unlist(trx, listingId)).status;
    }
    return { status, badge: check.status, graceEndsAtMs };
  });
}

async function update(trx: BadgeCheckDeps['db'], listingId: number, changes: Record<string, unknown>): Promise<ListingRow> {
  const [row] = await trx('listings')
    .where({ id: listingId })
    .update({ ...changes, updated_at: trx.fn.now() })
    .returning('*');
  return row;
}
