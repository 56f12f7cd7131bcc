import { firstFreeStart } from '../../domain/orders/billboard-capacity.ts';
import { todaysBillboard, type PlacedListing } from '../../domain/orders/placements.ts';
import { addDays } from '../../domain/orders/product-options.ts';
import {
  defaultStartWeek,
  firstLiveWeek,
  siteWeekWindow,
  weekLeftText,
  type ListingLaunchState,
  type WeekWindow,
} from '../../domain/orders/placement-weeks.ts';
import { addWeeks } from '../../workflows/contracts/weeks.ts';
import type { OperationContext } from '../operation.ts';

/** What the banner of every page reads: the paid billboard booking of the day (no operation returns it). */

/** Today's billboard listing on the request's site, or null (cached for the catalog's TTL). */
export function billboardToday(c: Pick<OperationContext, 'db' | 'site' | 'caches' | 'clock'>): Promise<PlacedListing | null> {
  return todaysBillboard(c.db, c.caches.billboard, c.site.id, c.clock.now());
}

/**
 * What the promote page offers as the billboard's start: the first date after today from which
 * the site's minimum of days is neither booked nor held (no operation returns it; a quote that
 * overlaps is refused with the same date).
 */
export function firstFreeBillboardDate(c: Pick<OperationContext, 'db' | 'site' | 'clock'>): Promise<string> {
  const tomorrow = addDays(c.clock.now().toISOString().slice(0, 10), 1);
  return firstFreeStart(c.db, c.site.id, tomorrow, c.site.settings.billboard_min_days);
}

/** A week a placement can start in, as the promote page offers it. */
export interface StartWeekChoice {
  /** Monday (YYYY-MM-DD). */
  week_start: string;
  /** The current week with less than the site's short-week hours left. */
  short: boolean;
}

/** What the promote page offers for a placement's start (the rule itself is the quote's, placement-weeks.ts). */
export interface StartWeeks {
  window: WeekWindow;
  /** "This week ends in 29 hours (…)". */
  notice: string;
  /** The first week the listing is live in; null while it has no launch week (a paid launch in the order gives one). */
  first: string | null;
  /** The start a line gets when none is chosen (null: the week of the launch bought with it). */
  default_start: string | null;
  /** The first week that works and the 12 after it. */
  choices: StartWeekChoice[];
}

/** The start weeks of a listing's placements at the context's time. */
export function startWeeksOf(c: Pick<OperationContext, 'site' | 'clock'>, listing: ListingLaunchState): StartWeeks {
  const window = siteWeekWindow(c.site, c.clock.now());
  const first = firstLiveWeek(listing, undefined, window.current);
  const from = first ?? window.current;
  const choices = Array.from({ length: 13 }, (_, i) => addWeeks(from, i)).map((week_start) => ({
    week_start,
    short: week_start === window.current && window.short,
  }));
  return { window, notice: weekLeftText(window), first, default_start: first && defaultStartWeek(first, window), choices };
}

/**
 * What a buyer is told before paying for lines that cover weeks: how much of this week is left,
 * and, on a short week, that a line starting in it gets only the rest of it. Null without such lines.
 */
export function weekLeftNotice(
  c: Pick<OperationContext, 'site' | 'clock'>,
  lines: { product: string; options: Record<string, unknown> }[],
): string | null {
  const window = siteWeekWindow(c.site, c.clock.now());
  const weekly = lines.filter((l) => l.product === 'featured' || l.product === 'launch');
  if (!weekly.length) return null;
  const startsNow = weekly.some(
    (l) => (l.product === 'launch' ? (l.options.week ?? window.current) : l.options.start_week) === window.current,
  );
  return window.short && startsNow
    ? `${weekLeftText(window)} What starts this week gets only what is left of it, at the full week’s price.`
    : weekLeftText(window);
}
