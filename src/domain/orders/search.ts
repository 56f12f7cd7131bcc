import type { Db } from '../../db/knex.ts';
import { AppError, type FieldError } from '../../errors/errors.ts';
import type { OrderStatus } from './order-views.ts';

/**
 * Support's search over every account's orders. Today `orders:list` calls it; the site team's
 * console will call it through a staff operation, so the filters are checked here, with the
 * refusal every transport shows the same way (400 validation_failed naming each bad filter).
 */

export const ORDER_STATUSES = ['pending', 'paid', 'fulfilled', 'expired', 'canceled', 'refunded', 'attention'] as const;

/** Filters as a person gives them (all optional; several narrow the search together). */
export interface OrderSearchFilters {
  /** The buyer's email, any case. */
  email?: string;
  /** A listing's id or slug: orders with a line for it. */
  listing?: string;
  status?: string;
  /** Created on or after: a date (`2026-03-01`, from its start, UTC) or a date-time. */
  from?: string;
  /** Created on or before: a date (to its end, UTC) or a date-time. */
  to?: string;
  /** A site's key. */
  site?: string;
  /** At most this many, newest first. @default 50 */
  limit?: number;
}

/** One order found: who bought it, what for, where it stands. */
export interface OrderSearchRow {
  number: string;
  site: string;
  status: OrderStatus;
  email: string;
  billing_name: string | null;
  total_cents: number;
  currency: string;
  created_at: Date;
  paid_at: Date | null;
  invoice_label: string | null;
  /** The listings its lines are for, by name as bought. */
  listings: string[];
}

const MAX_LIMIT = 500;

/** The orders matching every given filter, newest first. */
export async function searchOrders(db: Db, filters: OrderSearchFilters): Promise<OrderSearchRow[]> {
  const f = checkFilters(filters);
  const q = db('orders as o')
    .join('users as u', 'u.id', 'o.user_id')
    .join('sites as s', 's.id', 'o.site_id')
    .orderBy('o.created_at', 'desc')
    .orderBy('o.id', 'desc')
    .limit(f.limit)
    .select(
      'o.id',
      'o.number',
      's.key as site',
      'o.status',
      'u.email',
      db.raw(`o.billing->>'name' as billing_name`),
      'o.total_cents',
      'o.currency',
      'o.created_at',
      'o.paid_at',
      'o.invoice_label',
      db.raw(`coalesce((SELECT array_agg(DISTINCT coalesce(l.listing_name, 'listing ' || l.listing_id) ORDER BY coalesce(l.listing_name, 'listing ' || l.listing_id))
                 FROM order_lines l WHERE l.order_id = o.id AND l.listing_id IS NOT NULL), '{}') as listings`),
    );
  if (f.email) q.whereRaw('lower(u.email) = lower(?)', [f.email]);
  if (f.status) q.where('o.status', f.status);
  if (f.site) q.where('s.key', f.site);
  if (f.from) q.where('o.created_at', '>=', f.from);
  if (f.to) q.where('o.created_at', '<', f.to);
  if (f.listing) {
    const byId = /^\d{1,10}$/.test(f.listing) && Number(f.listing) <= 2_147_483_647;
    q.whereExists(
      db('order_lines as l')
        .join('listings as li', 'li.id', 'l.listing_id')
        .whereRaw('l.order_id = o.id')
        .where(byId ? { 'li.id': Number(f.listing) } : { 'li.slug': f.listing.toLowerCase() })
        .select(db.raw('1')),
    );
  }
  const rows = (await q) as (OrderSearchRow & { id: number })[];
  return rows.map(({ id: _id, ...row }) => row);
}

interface CheckedFilters {
  email?: string;
  listing?: string;
  status?: OrderStatus;
  from?: Date;
  /** Exclusive upper bound. */
  to?: Date;
  site?: string;
  limit: number;
}

function checkFilters(f: OrderSearchFilters): CheckedFilters {
  const errors: FieldError[] = [];
  const bad = (path: string, message: string) => errors.push({ path, message });
  const text = (v: string | undefined) => (v === undefined ? undefined : v.trim() || undefined);
  const status = text(f.status);
  if (status && !(ORDER_STATUSES as readonly string[]).includes(status)) bad('status', `Must be one of ${ORDER_STATUSES.join(', ')}.`);
  const from = boundOf(text(f.from), 'start');
  const to = boundOf(text(f.to), 'end');
  if (from === null) bad('from', 'Must be a date (YYYY-MM-DD) or an ISO date-time.');
  if (to === null) bad('to', 'Must be a date (YYYY-MM-DD) or an ISO date-time.');
  if (from && to && from >= to) bad('to', 'Must be after from.');
  const limit = f.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) bad('limit', `Must be a whole number from 1 to ${MAX_LIMIT}.`);
  if (errors.length) {
    throw new AppError('validation_failed', errors.map((e) => `${e.path}: ${e.message}`).join(' '), { errors });
  }
  return {
    email: text(f.email),
    listing: text(f.listing),
    status: status as OrderStatus | undefined,
    from: from ?? undefined,
    to: to ?? undefined,
    site: text(f.site),
    limit,
  };
}

/**
 * A filter's instant: a date-time as given; a date from its start (`from`) or up to its end
 * (`to`, exclusive: the next day's start), so `--from 2026-03-01 --to 2026-03-01` is that day.
 * Undefined when not given, null when not a date.
 */
export function boundOf(value: string | undefined, side: 'start' | 'end'): Date | null | undefined {
  if (value === undefined) return undefined;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  if (!day && !/^\d{4}-\d{2}-\d{2}T/.test(value)) return null;
  const at = new Date(day ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(at.getTime())) return null;
  if (day && at.toISOString().slice(0, 10) !== value) return null;
  return day && side === 'end' ? new Date(at.getTime() + 86_400_000) : at;
}
