import type { Db } from '../../db/knex.ts';
import { AppError, invalidField, notFound, unprocessable } from '../../errors/errors.ts';
import { readSiteByKey } from '../sites/sites.ts';
import { isProductKey } from './product-options.ts';
import type { PromoCode } from './promos.ts';

export interface NewPromo {
  site: string;
  code: string;
  percent?: number | undefined;
  amountCents?: number | undefined;
  startsAt?: Date | undefined;
  expiresAt?: Date | undefined;
  maxRedemptions?: number | undefined;
  perAccount?: number | undefined;
  firstOrderOnly: boolean;
  minNetCents?: number | undefined;
  products?: string[] | undefined;
}

/** 422: each value is well-formed, together they make no code a buyer could use. */
const refuse = (detail: string) => unprocessable('promo_code_refused', detail);

/** Creates a promo code (admin); the code is stored trimmed and matched without case. */
export async function createPromo(db: Db, p: NewPromo): Promise<PromoCode> {
  const site = await readSiteByKey(db, p.site);
  if (!site) throw notFound(`Site "${p.site}"`);
  const code = p.code.trim();
  if (!/^[A-Za-z0-9_-]{3,40}$/.test(code)) throw invalidField('code', 'The code must be 3–40 letters, digits, - or _.');
  if ((p.percent === undefined) === (p.amountCents === undefined))
    throw refuse('Give either a percent off or an amount off, not both and not neither.');
  if (p.percent !== undefined && !(p.percent > 0 && p.percent <= 100)) throw refuse('The percent off must be more than 0 and at most 100.');
  const unknown = (p.products ?? []).filter((k) => !isProductKey(k));
  if (unknown.length) throw refuse(`Unknown products: ${unknown.join(', ')}.`);
  if (p.startsAt && p.expiresAt && p.expiresAt <= p.startsAt) throw refuse('The code must expire after it starts.');
  // The unique index decides between two admins creating the same code at once.
  const [row] = await db('promo_codes')
    .insert({
      site_id: site.id,
      code,
      percent_bp: p.percent === undefined ? null : Math.round(p.percent * 100),
      amount_cents: p.amountCents ?? null,
      starts_at: p.startsAt ?? null,
      expires_at: p.expiresAt ?? null,
      max_redemptions: p.maxRedemptions ?? null,
      per_account: p.perAccount ?? null,
      first_order_only: p.firstOrderOnly,
      min_net_cents: p.minNetCents ?? null,
      products: p.products?.length ? p.products : null,
    })
    .onConflict(db.raw('(site_id, lower(code))'))
    .ignore()
    .returning('*');
  if (!row) throw new AppError('promo_code_exists', `The code "${code}" exists on ${p.site}.`);
  return row as PromoCode;
}

/** Every code of a site (or all sites) with its reserved and counted redemptions. */
export async function listPromos(db: Db, siteKey?: string) {
  return db('promo_codes as p')
    .join('sites as s', 's.id', 'p.site_id')
    .modify((q) => (siteKey ? q.where('s.key', siteKey) : q))
    .orderBy('p.id')
    .select(
      'p.*',
      's.key as site',
      db.raw(`(SELECT count(*) FROM promo_redemptions r WHERE r.promo_code_id = p.id AND r.state = 'reserved')::int AS reserved`),
      db.raw(`(SELECT count(*) FROM promo_redemptions r WHERE r.promo_code_id = p.id AND r.state = 'counted')::int AS counted`),
    ) as Promise<(PromoCode & { site: string; reserved: number; counted: number })[]>;
}

/** Disables a code (a disabled code keeps the time it was first disabled); it then reads as `unknown` to buyers. */
export async function disablePromo(db: Db, siteKey: string, code: string): Promise<void> {
  const site = await readSiteByKey(db, siteKey);
  if (!site) throw notFound(`Site "${siteKey}"`);
  const n = await db('promo_codes')
    .where({ site_id: site.id })
    .whereRaw('lower(code) = lower(?)', [code.trim()])
    .update({ disabled_at: db.raw('coalesce(disabled_at, now())') });
  if (!n) throw notFound(`Promo code "${code}"`);
}

/** One use of a code: who, on which order, when, and whether it was counted or only reserved. */
export interface PromoRedemption {
  promo_code_id: number;
  email: string;
  order_number: string;
  state: 'reserved' | 'counted' | 'released';
  at: Date;
}

/** The latest uses (reserved or counted) of each of `promoIds`, at most `perCode` each, newest first. */
export async function promoRedemptions(db: Db, promoIds: number[], perCode: number): Promise<PromoRedemption[]> {
  if (!promoIds.length) return [];
  const { rows } = await db.raw(
    `SELECT promo_code_id, email, order_number, state, at FROM (
       SELECT r.promo_code_id, u.email, o.number AS order_number, r.state, r.created_at AS at,
              row_number() OVER (PARTITION BY r.promo_code_id ORDER BY r.created_at DESC, r.id DESC) AS n
         FROM promo_redemptions r JOIN users u ON u.id = r.user_id JOIN orders o ON o.id = r.order_id
        WHERE r.promo_code_id = ANY(?) AND r.state <> 'released') ranked
      WHERE n <= ? ORDER BY promo_code_id, at DESC`,
    [promoIds, perCode],
  );
  return rows as PromoRedemption[];
}
