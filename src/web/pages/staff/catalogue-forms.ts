import type { z } from 'zod';
import type { staffCreatePromoCodeOp } from '../../../operations/staff-promo-codes.ts';
import type { FieldMessages } from '../../forms.ts';
import { formString } from '../../forms.ts';
import type { CatalogueSettings, SettingName } from './catalogue-view.ts';

/**
 * The catalogue forms read as operation inputs. Only what a form itself can tell is refused here
 * (a number that is not one); the rules of prices, codes and seller details are the operations'.
 */

/** Dollars as typed ("99", "99.5", "1,000.00") to cents; null when it is not an amount up to a million. */
export function centsOf(typed: string): number | null {
  const plain = typed.replace(/^\$/, '').replaceAll(',', '').trim();
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(plain)) return null;
  const cents = Math.round(Number(plain) * 100);
  return cents <= 100_000_000 ? cents : null;
}

type PromoInput = z.input<typeof staffCreatePromoCodeOp.input>;
type Read<T> =
  | { ok: true; input: T; values: Record<string, string> }
  | { ok: false; errors: FieldMessages; values: Record<string, string> };

const WHOLE = /^\d{1,9}$/;

/** The new promo code form as staff_create_promo_code's input. */
export function promoInput(body: Record<string, unknown>): Read<PromoInput> {
  const text = (name: string) => formString(body, name).trim();
  const values: Record<string, string> = {};
  for (const name of ['code', 'percent', 'amount', 'starts', 'expires', 'max_redemptions', 'per_account', 'min_net'])
    values[name] = text(name);
  const products = ([] as unknown[]).concat(body.products ?? []).filter((p): p is string => typeof p === 'string');
  for (const p of products) values[`products-${p}`] = 'yes';
  if (text('first_order_only')) values.first_order_only = 'yes';
  const errors: FieldMessages = {};
  const input: PromoInput = { code: values.code!, first_order_only: values.first_order_only === 'yes' };
  if (products.length) input.products = products;
  if (values.percent) {
    const percent = Number(values.percent.replace('%', ''));
    if (Number.isFinite(percent) && /^-?[\d.]+%?$/.test(values.percent)) input.percent = percent;
    else errors.percent = 'Give the percent off as a number, such as 25 or 12.5.';
  }
  const money = (name: 'amount' | 'min_net', key: 'amount_cents' | 'min_net_cents') => {
    if (!values[name]) return;
    const cents = centsOf(values[name]);
    if (cents === null) errors[name] = 'Give an amount in dollars, such as 10 or 9.99.';
    else input[key] = cents;
  };
  money('amount', 'amount_cents');
  money('min_net', 'min_net_cents');
  for (const name of ['max_redemptions', 'per_account'] as const) {
    if (!values[name]) continue;
    if (WHOLE.test(values[name]) && Number(values[name]) >= 1) input[name] = Number(values[name]);
    else errors[name] = 'Give a whole number of at least 1, or leave it empty.';
  }
  const day = (name: 'starts' | 'expires') => {
    if (!values[name]) return undefined;
    const d = new Date(`${values[name]}T00:00:00Z`);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(values[name]) || Number.isNaN(d.getTime())) errors[name] = 'Give a date such as 2026-05-31.';
    return d;
  };
  const starts = day('starts');
  const expires = day('expires');
  if (starts && !errors.starts) input.starts_at = starts.toISOString();
  // "Until" a day includes the day: the code expires at the start of the next one.
  if (expires && !errors.expires) input.expires_at = new Date(expires.getTime() + 86_400_000).toISOString();
  return Object.keys(errors).length ? { ok: false, errors, values } : { ok: true, input, values };
}

/** staff_set_catalogue_settings's input. */
export type Changes = { paid_slots_per_week?: number } & Partial<Record<Exclude<SettingName, 'paid_slots_per_week'>, string>>;

/** The settings form's fields that differ from the current settings (a field the form leaves out is unchanged). */
export function settingChanges(
  body: Record<string, unknown>,
  current: CatalogueSettings,
): { ok: true; changes: Changes; values: Record<string, string> } | { ok: false; errors: FieldMessages; values: Record<string, string> } {
  const values: Record<string, string> = {};
  const changes: Changes = {};
  const errors: FieldMessages = {};
  for (const name of ['paid_slots_per_week', 'seller_name', 'seller_address', 'seller_vat_id'] as const) {
    if (typeof body[name] !== 'string') continue;
    const value = formString(body, name).trim();
    values[name] = value;
    if (name === 'paid_slots_per_week') {
      if (!/^\d{1,5}$/.test(value) || Number(value) > 10_000) errors[name] = 'Give a whole number from 0 to 10000.';
      else if (Number(value) !== current.paid_slots_per_week) changes[name] = Number(value);
    } else if (value !== (current[name] ?? '')) changes[name] = value;
  }
  if (!Object.keys(errors).length && !Object.keys(changes).length) errors.form = 'Nothing is changed: edit a setting first.';
  return Object.keys(errors).length ? { ok: false, errors, values } : { ok: true, changes, values };
}
