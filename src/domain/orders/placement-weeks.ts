import type { Db } from '../../db/knex.ts';
import { AppError, type FieldError } from '../../errors/errors.ts';
import { launchSettingsOf } from '../launches/launch-settings.ts';
import { addWeeks, isoWeekLabel, isoWeekStart, weekStartMs } from '../../workflows/contracts/weeks.ts';
import type { Site } from '../sites/sites.ts';
import { dayText, durationText, weekOfText } from '../time/week-words.ts';

/**
 * The weeks a placement can be sold for. A placement shows only while its listing is live, so a
 * week-based line (featured) starts in a week in which the listing is live: by default the
 * listing's launch week when it is scheduled (or the week of a paid launch bought in the same
 * order), else the current week, and next week instead when little of the current one is left
 * (docs/decisions/short-weeks.md). A billboard day is sold under the same rule.
 */

/** Where the current week stands for a buyer. */
export interface WeekWindow {
  /** Monday of the current week. */
  current: string;
  /** Monday of next week. */
  next: string;
  /** When the current week ends (next Monday 00:00 UTC). */
  ends_at: Date;
  /** Milliseconds left in the current week. */
  ms_left: number;
  /** Less than the site's `short_week_hours` is left. */
  short: boolean;
}

export function weekWindow(now: Date, shortWeekHours: number): WeekWindow {
  const current = isoWeekStart(now);
  const next = addWeeks(current, 1);
  const endsAt = new Date(weekStartMs(next));
  const msLeft = endsAt.getTime() - now.getTime();
  return { current, next, ends_at: endsAt, ms_left: msLeft, short: msLeft < shortWeekHours * 3_600_000 };
}

/** The site's week window (its short-week setting). */
export const siteWeekWindow = (site: Site, now: Date) =>
  weekWindow(now, launchSettingsOf(site.settings as unknown as Record<string, unknown>).short_week_hours);

/** `This week ends in 29 hours (Monday 30 Nov 2026, 00:00 UTC).` */
export function weekLeftText(window: WeekWindow): string {
  return `This week ends in ${durationText(window.ms_left)} (Monday ${dayText(window.next)}, 00:00 UTC).`;
}

/** What the rule needs of a listing. */
export interface ListingLaunchState {
  status: string;
  /** Monday of its launch week (YYYY-MM-DD), or null. */
  launch_week: string | null;
}

/**
 * The first week (a Monday) in which the listing is live, or null when it will not be live in any
 * week this order can know of (not launched and no paid launch in the order, or unlisted).
 * `orderLaunch`: the week of a paid launch of this listing in the same order (null: at once),
 * undefined when the order has none.
 */
export function firstLiveWeek(listing: ListingLaunchState, orderLaunch: string | null | undefined, current: string): string | null {
  if (listing.status === 'unlisted') return null;
  if (listing.status === 'live') return current;
  if (orderLaunch !== undefined) return orderLaunch === null || orderLaunch < current ? current : orderLaunch;
  if (listing.status === 'scheduled' && listing.launch_week) return listing.launch_week < current ? current : listing.launch_week;
  return null;
}

/** The start a week-based line gets when the buyer names none. */
export function defaultStartWeek(firstLive: string, window: WeekWindow): string {
  return firstLive === window.current && window.short ? window.next : firstLive;
}

/** How far ahead a placement may start. */
export const MAX_START_WEEKS_AHEAD = 52;

/** What the placement rules need of one order item. */
export interface PlacementItem {
  product: string;
  listing_id: number | null;
  options: Record<string, unknown>;
}

/**
 * Fills in each featured line's `start_week` (the default when absent) and checks every
 * placement against the weeks its listing is live. A week before the listing goes live is
 * 409 `not_live_in_week` with `first_week` (ISO label, null when no week works); a past or too
 * distant week is 422 `order_item_refused`. Returns the items with their start weeks.
 */
export async function placeInLiveWeeks<T extends PlacementItem>(db: Db, site: Site, items: T[], now: Date): Promise<T[]> {
  const window = siteWeekWindow(site, now);
  const states = await launchStates(db, items);
  const launches = new Map<number, string | null>();
  for (const item of items) {
    if (item.product === 'launch' && item.listing_id !== null)
      launches.set(item.listing_id, (item.options.week as string | undefined) ?? null);
  }
  const refused: FieldError[] = [];
  const notLive: { path: string; message: string; first: string | null }[] = [];
  const placed = items.map((item, i) => {
    if (item.listing_id === null || !['featured', 'billboard', 'categories'].includes(item.product)) return item;
    const state = states.get(item.listing_id);
    if (!state) return item;
    const first = firstLiveWeek(state, launches.get(item.listing_id), window.current);
    if (item.product === 'categories') {
      if (state.status === 'unlisted') notLive.push({ path: `items.${i}.listing_id`, message: unlistedText, first: null });
      return item;
    }
    if (item.product === 'billboard') {
      const start = item.options.start_date as string;
      if (first === null) notLive.push({ path: `items.${i}.listing_id`, message: neverLiveText(state), first });
      else if (start < first) {
        notLive.push({
          path: `items.${i}.options.start_date`,
          message: `The listing goes live on ${dayText(first)}; the billboard can start on ${dayText(first)} or later`,
          first,
        });
      }
      return item;
    }
    const given = item.options.start_week as string | undefined;
    if (first === null) {
      notLive.push({ path: `items.${i}.listing_id`, message: neverLiveText(state), first });
      return item;
    }
    const start = given ?? defaultStartWeek(first, window);
    const at = `items.${i}.options.start_week`;
    if (start < window.current) refused.push({ path: at, message: `The ${weekOfText(start)} is over; choose this week or a later one` });
    else if (start > addWeeks(window.current, MAX_START_WEEKS_AHEAD))
      refused.push({ path: at, message: `Choose a week within the next ${MAX_START_WEEKS_AHEAD} weeks` });
    else if (start < first)
      notLive.push({
        path: at,
        message: `The listing is not live in the ${weekOfText(start)}; the first week that works is the ${weekOfText(first)}`,
        first,
      });
    return { ...item, options: { ...item.options, start_week: start } };
  });
  if (refused.length)
    throw new AppError('order_item_refused', refused.map((r) => `${r.path}: ${r.message}.`).join(' '), { errors: refused });
  if (notLive.length) {
    const first = notLive[0]!.first;
    throw new AppError('not_live_in_week', notLive.map((r) => `${r.message}.`).join(' '), {
      errors: notLive.map(({ path, message }) => ({ path, message })),
      extensions: { first_week: first && isoWeekLabel(first), first_week_start: first },
    });
  }
  return placed;
}

const unlistedText = 'The listing is unlisted: a placement would show nowhere';

function neverLiveText(state: ListingLaunchState): string {
  if (state.status === 'unlisted') return unlistedText;
  return 'The listing has no launch week yet: add a paid launch to the order, or choose the free launch first, then place it';
}

async function launchStates(db: Db, items: PlacementItem[]): Promise<Map<number, ListingLaunchState>> {
  const ids = [...new Set(items.map((i) => i.listing_id).filter((id): id is number => id !== null))];
  if (!ids.length) return new Map();
  const rows = await db('listings').whereIn('id', ids).select('id', 'status', 'launch_week');
  return new Map(rows.map((r) => [r.id, { status: r.status, launch_week: r.launch_week }]));
}
