import { z } from 'zod';
import type { OrderRow } from '../domain/orders/order-views.ts';
import { AppError } from '../errors/errors.ts';
import { repriceWithBilling } from '../operations/checkout-payments.ts';
import type { OperationContext } from '../operations/operation.ts';
import { BillingDetails } from '../operations/order-schemas.ts';
import { formatCents, normalVatNumber } from '../operations/read-models/orders.ts';
import type { PayFormValues } from './checkout-view.ts';
import { formString, parseForm, type FieldMessages } from './forms.ts';

/** The pay page's billing details: read from the one form, priced before anything is charged. */

/** The pay form's billing fields, checked by the operation's own billing schema; a blank field is absent. */
const BillingForm = z.preprocess(
  (body) => Object.fromEntries(Object.entries(body as Record<string, unknown>).filter(([, v]) => !(typeof v === 'string' && !v.trim()))),
  BillingDetails,
);

/** An order's total in words: `USD 198.00`. */
export const money = (order: OrderRow) => formatCents(order.total_cents, order.currency);

/** The fields as typed, as strings (absent ones empty), to show them again whatever happens. */
export function typedValues(body: Record<string, unknown>): PayFormValues {
  const value = (name: keyof PayFormValues) => formString(body, name);
  return {
    name: value('name'),
    country: value('country'),
    vat_number: value('vat_number'),
    method: value('method'),
    card_number: value('card_number'),
    expiry: value('expiry'),
    cvc: value('cvc'),
  };
}

export type PricedBilling = { ok: true; order: OrderRow; notice: string | null } | { ok: false; errors: FieldMessages; status: number };

/**
 * Saves the typed billing details and prices the order with them (re-checking the promo code).
 * The notice says why the person must look again before paying: another country or VAT number
 * (the VAT and the total may differ), a dropped promo code or a changed price. Invalid details
 * are messages by field, for the page to show beside the typed values.
 */
export async function priceBilling(c: OperationContext, order: OrderRow, typed: PayFormValues): Promise<PricedBilling> {
  const form = parseForm(BillingForm, { name: typed.name, country: typed.country, vat_number: typed.vat_number });
  if (!form.ok) return { ok: false, errors: form.errors, status: 400 };
  const billing = { name: form.data.name ?? null, country: form.data.country, vat_number: form.data.vat_number ?? null };
  const changed =
    billing.country !== order.billing.country ||
    (billing.vat_number && normalVatNumber(billing.vat_number)) !== (order.billing.vat_number || null);
  try {
    const { order: repriced, promoDropped } = await repriceWithBilling(c, order, billing);
    const notice = promoDropped
      ? promoNotice(order, repriced, promoDropped)
      : changed
        ? `With these billing details the VAT is ${formatCents(repriced.quote.vat.amount_cents, repriced.currency)} and the total is ${money(repriced)}. Nothing was charged; check the order and press Pay to confirm.`
        : repriced.total_cents !== order.total_cents
          ? promoNotice(order, repriced, null)
          : null;
    return { ok: true, order: repriced, notice };
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'vat_number_invalid') throw err;
    return { ok: false, errors: { vat_number: err.message }, status: 422 };
  }
}

/** Why the total changed (a promo code that stopped being valid, or a new price), and the new total. */
function promoNotice(before: OrderRow, after: OrderRow, reason: string | null): string {
  const code = before.quote.promo?.code;
  const why = reason ? `The promo code ${code} can no longer be used (${reason.replaceAll('_', ' ')}). ` : 'The price has changed. ';
  return `${why}The new total is ${money(after)}. Nothing was charged; review the order and pay again.`;
}
