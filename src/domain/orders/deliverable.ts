import type { Db } from '../../db/knex.ts';
import { paidLaunchRefusal } from '../launches/launch-paid.ts';
import type { ListingRow } from '../listings/listings.ts';
import { takenDays } from './billboard-capacity.ts';
import type { OrderLineRow } from './order-views.ts';
import { addDays } from './product-options.ts';

/**
 * "Can this line be delivered?", one answer for every asker: the pay page before it charges
 * (nothing is taken for what cannot be delivered), fulfilment before it books and again under
 * its locks (a paid line that cannot be delivered is refunded, see undeliverable.ts). Reasons are
 * sentences for the buyer; they also become the refund's reason.
 */

type Line = Pick<OrderLineRow, 'id' | 'product' | 'listing_id' | 'options'>;

type ListingFacts = Pick<ListingRow, 'id' | 'site_id' | 'owner_id' | 'name' | 'status' | 'plan' | 'unlocked_sections'>;

const listingOf = (db: Db, id: number): Promise<ListingFacts | undefined> =>
  db('listings').where({ id }).first('id', 'site_id', 'owner_id', 'name', 'status', 'plan', 'unlocked_sections');

/** Why the billboard days of the line are no longer its to book (booked or held by another order), or null. */
export async function billboardRefusal(db: Db, siteId: number, line: Line): Promise<string | null> {
  const first = line.options.start_date as string;
  const taken = await takenDays(db, siteId, first, addDays(first, (line.options.days as number) - 1), line.id);
  return taken.size ? `billboard days from ${[...taken].sort()[0]} are booked or held by another order` : null;
}

/** Why the line's section cannot be unlocked on the listing (unlocked meanwhile), or null. */
export function sectionRefusal(listing: Pick<ListingFacts, 'unlocked_sections'>, line: Line): string | null {
  const section = line.options.section as string;
  return (listing.unlocked_sections as string[]).includes(section)
    ? `the section "${section}" was unlocked on this listing meanwhile`
    : null;
}

/** Why the line's listing cannot receive anything (gone, unlisted), or null. */
function listingRefusal(listing: ListingFacts | undefined, line: Line): string | null {
  if (!listing) return `listing ${line.listing_id} no longer exists`;
  if (listing.status === 'unlisted') return `the listing "${listing.name}" is unlisted`;
  return null;
}

/** Why one line cannot be delivered now, or null when it can. */
export async function lineRefusal(db: Db, siteId: number, line: Line, now: Date): Promise<string | null> {
  const listing = line.listing_id === null ? undefined : await listingOf(db, line.listing_id);
  if (line.listing_id !== null) {
    const refusal = listingRefusal(listing, line);
    if (refusal) return refusal;
  }
  switch (line.product) {
    case 'launch': {
      const refusal = await paidLaunchRefusal(db, listing!, (line.options.week as string | undefined) ?? null, now);
      return refusal ? refusal.message : null;
    }
    case 'billboard':
      return billboardRefusal(db, siteId, line);
    case 'unlock_section':
      return sectionRefusal(listing!, line);
    default:
      return null;
  }
}

/**
 * Before the pay page charges: every line's refusal, and the listing no longer the buyer's (a
 * claim moved it) or no longer on the order's site. Empty when everything can be delivered.
 */
export async function orderRefusals(
  db: Db,
  order: { id: number; site_id: number; user_id: number },
  now: Date,
): Promise<{ line: number; listingId: number | null; reason: string }[]> {
  const lines: OrderLineRow[] = await db('order_lines').where({ order_id: order.id }).whereNull('refunded_at').orderBy('position');
  const out = [];
  for (const line of lines) {
    let reason = await lineRefusal(db, order.site_id, line, now);
    if (!reason && line.listing_id !== null) {
      const listing = await listingOf(db, line.listing_id);
      if (listing && (listing.owner_id !== order.user_id || listing.site_id !== order.site_id))
        reason = `the listing "${listing.name}" is no longer yours`;
    }
    if (reason) out.push({ line: line.position, listingId: line.listing_id, reason });
  }
  return out;
}
