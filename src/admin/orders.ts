import type { Db } from '../db/knex.ts';
import { allProducts, updateProduct } from '../domain/catalog/products-admin.ts';
import { createPromo, disablePromo, listPromos } from '../domain/orders/promos-admin.ts';

export const ORDERS_USAGE = `  npm run admin -- products:list [--site K]
  npm run admin -- products:set-price --site K --product P --cents N
  npm run admin -- products:set-active --site K --product P --active true|false
  npm run admin -- promos:create --site K --code C (--percent N | --amount-cents N) [--starts ISO] [--expires ISO]
                   [--max-redemptions N] [--per-account N] [--first-order-only] [--min-net-cents N] [--products a,b]
  npm run admin -- promos:list [--site K]
  npm run admin -- promos:disable --site K --code C`;

/** parseArgs options of the products:*, promos:* and orders:* commands (site and active are shared with questions:*). */
export const ORDER_OPTIONS = {
  site: { type: 'string' },
  active: { type: 'string' },
  product: { type: 'string' },
  cents: { type: 'string' },
  code: { type: 'string' },
  percent: { type: 'string' },
  'amount-cents': { type: 'string' },
  starts: { type: 'string' },
  expires: { type: 'string' },
  'max-redemptions': { type: 'string' },
  'per-account': { type: 'string' },
  'first-order-only': { type: 'boolean' },
  'min-net-cents': { type: 'string' },
  products: { type: 'string' },
  number: { type: 'string' },
  line: { type: 'string' },
  listing: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
} as const;

export type OrderFlags = Partial<Record<Exclude<keyof typeof ORDER_OPTIONS, 'first-order-only'>, string>> & {
  'first-order-only'?: boolean;
};

/** A bad flag; the CLI prints the message and exits 1. */
export class OrderUsageError extends Error {}

/** Runs a products:*, promos:* command; returns null for other commands. */
export async function runOrderCommand(db: Db, command: string | undefined, f: OrderFlags): Promise<number | null> {
  switch (command) {
    case 'products:list':
      console.log('site\tproduct\tprice_cents\tstatus\tname');
      for (const p of await allProducts(db, f.site))
        console.log(`${p.site}\t${p.key}\t${p.price_cents}\t${p.active ? 'active' : 'inactive'}\t${p.name}`);
      return 0;
    case 'products:set-price': {
      const p = await updateProduct(db, need(f.site, '--site'), need(f.product, '--product'), {
        price_cents: int(need(f.cents, '--cents'), '--cents', 0),
      });
      console.log(`${p.site}\t${p.key}\t${p.price_cents}`);
      return 0;
    }
    case 'products:set-active': {
      const active = need(f.active, '--active');
      if (active !== 'true' && active !== 'false') throw new OrderUsageError('--active must be true or false.');
      const p = await updateProduct(db, need(f.site, '--site'), need(f.product, '--product'), { active: active === 'true' });
      console.log(`${p.site}\t${p.key}\t${p.active ? 'active' : 'inactive'}`);
      return 0;
    }
    case 'promos:create': {
      const promo = await createPromo(db, {
        site: need(f.site, '--site'),
        code: need(f.code, '--code'),
        percent: f.percent === undefined ? undefined : num(f.percent, '--percent'),
        amountCents: opt(f['amount-cents'], '--amount-cents', 1),
        startsAt: date(f.starts, '--starts'),
        expiresAt: date(f.expires, '--expires'),
        maxRedemptions: opt(f['max-redemptions'], '--max-redemptions', 1),
        perAccount: opt(f['per-account'], '--per-account', 1),
        firstOrderOnly: f['first-order-only'] ?? false,
        minNetCents: opt(f['min-net-cents'], '--min-net-cents', 0),
        products: f.products
          ?.split(',')
          .map((p) => p.trim())
          .filter(Boolean),
      });
      console.log(`created promo ${promo.id} ${promo.code}`);
      return 0;
    }
    case 'promos:list':
      console.log('site\tcode\toff\treserved\tcounted\tmax\tstatus');
      for (const p of await listPromos(db, f.site)) {
        const off = p.percent_bp !== null ? `${p.percent_bp / 100}%` : `${p.amount_cents}c`;
        console.log(
          `${p.site}\t${p.code}\t${off}\t${p.reserved}\t${p.counted}\t${p.max_redemptions ?? '-'}\t${p.disabled_at ? 'disabled' : 'enabled'}`,
        );
      }
      return 0;
    case 'promos:disable':
      await disablePromo(db, need(f.site, '--site'), need(f.code, '--code'));
      console.log(`disabled ${f.code}`);
      return 0;
    default:
      return null;
  }
}

function need(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new OrderUsageError(`${flag} is required.\n${ORDERS_USAGE}`);
  return value;
}

function int(value: string, flag: string, min: number): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) < min) throw new OrderUsageError(`${flag} must be a whole number ≥ ${min}.`);
  return Number(value);
}

const opt = (value: string | undefined, flag: string, min: number) => (value === undefined ? undefined : int(value, flag, min));

function num(value: string, flag: string): number {
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(value)) throw new OrderUsageError(`${flag} must be a number such as 10 or 12.5.`);
  return Number(value);
}

function date(value: string | undefined, flag: string): Date | undefined {
  if (value === undefined) return undefined;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new OrderUsageError(`${flag} must be an ISO date or date-time.`);
  return d;
}
