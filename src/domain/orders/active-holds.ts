import type { Db } from '../../db/knex.ts';

/**
 * An active hold, on `capacity_holds` joined with its order as `o`: the checkout link can still be
 * paid, or the order is paid and the line not booked yet (fulfilment deletes the hold as it books).
 * An expired, canceled, refunded or fulfilled order holds nothing, whether or not its rows are gone.
 */
export const ACTIVE_HOLD_SQL = `((o.status = 'pending' AND o.expires_at > now()) OR o.status IN ('paid', 'attention'))`;

/** Active holds of a site (`capacity_holds as h` joined with `orders as o`), to filter further. */
export const activeHolds = (db: Db, siteId: number) =>
  db('capacity_holds as h').join('orders as o', 'o.id', 'h.order_id').where('h.site_id', siteId).whereRaw(ACTIVE_HOLD_SQL);
