import { formatCents, lineText } from './line-text.ts';
import type { OrderLineRow, OrderRow } from './order-views.ts';

const TREATMENT: Record<string, string> = {
  domestic: 'domestic VAT',
  eu_consumer: 'VAT of the buyer’s country',
  reverse_charge: 'reverse charge',
  outside_eu: 'outside the EU',
};

/** The receipt mail: lines, discount, the VAT breakdown and the invoice link. */
export function receiptText(order: OrderRow, lines: OrderLineRow[], invoiceLink: string): string {
  const q = order.quote;
  const money = (c: number) => formatCents(c, order.currency);
  const rows = lines.map((l) => `  ${lineText(l, order.currency)}; net ${money(l.net_cents)} + VAT ${money(l.vat_cents)}`);
  return [
    `Thank you for your order ${order.number}.`,
    '',
    ...rows,
    '',
    `Subtotal: ${money(q.subtotal_cents)}`,
    ...(q.promo ? [`Promo ${q.promo.code}: -${money(q.discount_cents)}`] : []),
    `Net: ${money(q.net_cents)}`,
    `VAT ${(q.vat.rate_bp / 100).toFixed(2)} % (${q.vat.country}, ${TREATMENT[q.vat.treatment] ?? q.vat.treatment}): ${money(q.vat.amount_cents)}`,
    ...(q.vat.note ? [q.vat.note] : []),
    ...(order.billing.vat_number ? [`Your VAT number: ${order.billing.vat_number}`] : []),
    `Total paid: ${money(q.total_cents)}`,
    '',
    `Invoice ${order.invoice_label ?? order.invoice_number}: ${invoiceLink}`,
  ].join('\n');
}
