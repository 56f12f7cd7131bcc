import type { z } from 'zod';
import type { Db } from '../db/knex.ts';
import { readSites } from '../domain/sites/sites.ts';
import type { Operation } from '../operations/operation.ts';
import { staffListProductsOp, staffSetProductActiveOp, staffSetProductPriceOp } from '../operations/staff-catalogue.ts';
import { staffCreatePromoCodeOp, staffDisablePromoCodeOp, staffListPromoCodesOp } from '../operations/staff-promo-codes.ts';
import { runOperationFromShell, type ShellServices } from './run-operation.ts';

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

/** Runs a products:*, promos:* command (through the console's operations, audited as the command line); returns null for other commands. */
export async function runOrderCommand(
  db: Db,
  services: ShellServices | undefined,
  command: string | undefined,
  f: OrderFlags,
): Promise<number | null> {
  if (!command || !/^(products|promos):/.test(command)) return null;
  if (!services) throw new OrderUsageError(`${command} needs the services of main.ts.`);
  const run = <I extends z.ZodObject, O extends z.ZodType>(op: Operation<I, O>, input: z.input<I>, site: string) =>
    runOperationFromShell(services, op, input, site);
  switch (command) {
    case 'products:list':
      console.log('site\tproduct\tprice_cents\tstatus\tname');
      for (const site of await sitesOf(db, f.site))
        for (const p of (await run(staffListProductsOp, {}, site)).items)
          console.log(`${site}\t${p.key}\t${p.price_cents}\t${p.active ? 'active' : 'inactive'}\t${p.name}`);
      return 0;
    case 'products:set-price': {
      const site = need(f.site, '--site');
      const input = { product: need(f.product, '--product'), price_cents: int(need(f.cents, '--cents'), '--cents', 0) };
      const p = await run(staffSetProductPriceOp, input, site);
      console.log(`${site}\t${p.key}\t${p.price_cents}`);
      return 0;
    }
    case 'products:set-active': {
      const site = need(f.site, '--site');
      const active = need(f.active, '--active');
      if (active !== 'true' && active !== 'false') throw new OrderUsageError('--active must be true or false.');
      const p = await run(staffSetProductActiveOp, { product: need(f.product, '--product'), active: active === 'true' }, site);
      console.log(`${site}\t${p.key}\t${p.active ? 'active' : 'inactive'}`);
      return 0;
    }
    case 'promos:create': {
      const promo = await run(staffCreatePromoCodeOp, promoInput(f), need(f.site, '--site'));
      console.log(`created promo ${promo.id} ${promo.code}`);
      return 0;
    }
    case 'promos:list':
      console.log('site\tcode\toff\treserved\tcounted\tmax\tstatus');
      for (const site of await sitesOf(db, f.site)) {
        for (const p of (await run(staffListPromoCodesOp, {}, site)).items) {
          const off = p.percent !== null ? `${p.percent}%` : `${p.amount_cents}c`;
          console.log(
            `${site}\t${p.code}\t${off}\t${p.reserved}\t${p.counted}\t${p.max_redemptions ?? '-'}\t${p.disabled_at ? 'disabled' : 'enabled'}`,
          );
        }
      }
      return 0;
    case 'promos:disable':
      await run(staffDisablePromoCodeOp, { code: need(f.code, '--code') }, need(f.site, '--site'));
      console.log(`disabled ${f.code}`);
      return 0;
    default:
      return null;
  }
}

/** The site given, or every site (the list commands without --site). */
const sitesOf = async (db: Db, site: string | undefined) => (site ? [site] : (await readSites(db)).map((s) => s.key));

function promoInput(f: OrderFlags) {
  return {
    code: need(f.code, '--code'),
    percent: f.percent === undefined ? undefined : num(f.percent, '--percent'),
    amount_cents: opt(f['amount-cents'], '--amount-cents', 1),
    starts_at: date(f.starts, '--starts')?.toISOString(),
    expires_at: date(f.expires, '--expires')?.toISOString(),
    max_redemptions: opt(f['max-redemptions'], '--max-redemptions', 1),
    per_account: opt(f['per-account'], '--per-account', 1),
    first_order_only: f['first-order-only'] ?? false,
    min_net_cents: opt(f['min-net-cents'], '--min-net-cents', 0),
    products: f.products
      ?.split(',')
      .map((p) => p.trim())
      .filter(Boolean),
  };
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
