import type { Knex } from 'knex';
import type { Db } from '../../db/knex.ts';
import { AppError, tooManyRequests } from '../../errors/errors.ts';
import { RateLimitedError, takePoints, type RateClaim, type TakenPoints } from '../quotas/rate-limit.ts';

/** A promo code row (percent in basis points, or a fixed amount in cents). */
export interface PromoCode {
  id: number;
  site_id: number;
  code: string;
  percent_bp: number | null;
  amount_cents: number | null;
  starts_at: Date | null;
  expires_at: Date | null;
  max_redemptions: number | null;
  per_account: number | null;
  first_order_only: boolean;
  min_net_cents: number | null;
  products: string[] | null;
  disabled_at: Date | null;
}

export const PROMO_REASONS = [
  'unknown',
  'not_yet_valid',
  'expired',
  'exhausted',
  'already_used',
  'first_order_only',
  'minimum_not_met',
  'not_applicable',
] as const;
export type PromoReason = (typeof PROMO_REASONS)[number];

/** Wrong promo-code tries allowed before 429 (settings). */
export interface PromoAttemptLimits {
  perAccount15Min: number;
  perAccountDay: number;
  perIpDay: number;
}

const DETAIL: Record<PromoReason, string> = {
  unknown: 'There is no such promo code.',
  not_yet_valid: 'This promo code is not valid yet.',
  expired: 'This promo code has expired.',
  exhausted: 'This promo code has been used up.',
  already_used: 'You have already used this promo code.',
  first_order_only: 'This promo code is for a first order only.',
  minimum_not_met: 'The order is below this promo code’s minimum.',
  not_applicable: 'This promo code does not apply to the products in this order.',
};

/** 422 `promo_code_invalid` with the machine `reason`. */
export const promoInvalid = (reason: PromoReason) =>
  new AppError('promo_code_invalid', DETAIL[reason], {
    extensions: { reason },
    errors: [{ path: 'promo_code', message: DETAIL[reason] }],
  });

/** The site's code matching what the user typed (case and surrounding spaces ignored). */
export async function findPromo(db: Db, siteId: number, typed: string): Promise<PromoCode | undefined> {
  return db('promo_codes').where({ site_id: siteId }).whereRaw('lower(code) = lower(?)', [typed.trim()]).first();
}

export interface PromoUse {
  userId: number;
  /** Products of the order and their amounts (quantity × unit price) before any discount. */
  lines: { product: string; amount_cents: number }[];
  now: Date;
  /** The order this use belongs to (its own reservation does not count against it). */
  orderId?: number;
}

/** Why the code cannot be used for this order, or null when it can. */
export async function promoRefusal(db: Db, promo: PromoCode | undefined, use: PromoUse): Promise<PromoReason | null> {
  if (!promo || promo.disabled_at) return 'unknown';
  if (promo.starts_at && promo.starts_at > use.now) return 'not_yet_valid';
  if (promo.expires_at && promo.expires_at <= use.now) return 'expired';
  const held = () =>
    db('promo_redemptions')
      .where({ promo_code_id: promo.id })
      .whereIn('state', ['reserved', 'counted'])
      .modify((q) => (use.orderId ? q.whereNot({ order_id: use.orderId }) : q));
  if (promo.max_redemptions !== null && (await count(held())) >= promo.max_redemptions) return 'exhausted';
  if (promo.per_account !== null && (await count(held().where({ user_id: use.userId }))) >= promo.per_account) return 'already_used';
  if (promo.first_order_only && (await count(db('orders').where({ user_id: use.userId }).whereNotNull('paid_at'))) > 0)
    return 'first_order_only';
  const eligible = eligibleCents(promo, use.lines);
  if (eligible === 0) return 'not_applicable';
  if (promo.min_net_cents !== null && eligible < promo.min_net_cents) return 'minimum_not_met';
  return null;
}

/** What the code applies to: the lines of its products (all lines without a product list). */
export function eligibleCents(promo: Pick<PromoCode, 'products'>, lines: { product: string; amount_cents: number }[]): number {
  return lines.filter((l) => isEligible(promo, l.product)).reduce((sum, l) => sum + l.amount_cents, 0);
}

export const isEligible = (promo: Pick<PromoCode, 'products'>, product: string) => !promo.products || promo.products.includes(product);

async function count(query: Knex.QueryBuilder): Promise<number> {
  const rows = (await query.count({ n: '*' })) as unknown as { n: string }[];
  return Number(rows[0]!.n);
}

/** The wrong-try limits as rate limits: per account (15 minutes, a day) and per client address (a day). */
function promoTryClaims(limits: PromoAttemptLimits, userId: number, ip: string): RateClaim[] {
  return [
    { limit: { name: 'promo-account-15m', points: limits.perAccount15Min, seconds: 900 }, key: String(userId) },
    { limit: { name: 'promo-account-day', points: limits.perAccountDay, seconds: 86_400 }, key: String(userId) },
    { limit: { name: 'promo-ip-day', points: limits.perIpDay, seconds: 86_400 }, key: ip },
  ];
}

/**
 * Takes one try of the account and of the client address before a code is evaluated, so that
 * concurrent wrong tries cannot all slip under the limit; 429 `rate_limited` with
 * `Retry-After` once a limit is spent. A right code gives its try back (right codes never count).
 */
export async function takePromoTry(db: Db, limits: PromoAttemptLimits, userId: number, ip: string): Promise<TakenPoints> {
  try {
    return await takePoints(db, promoTryClaims(limits, userId, ip));
  } catch (err) {
    if (!(err instanceof RateLimitedError)) throw err;
    throw tooManyRequests(`Too many wrong promo codes; try again in ${err.retryAfterSeconds} seconds.`, err.retryAfterSeconds);
  }
}
