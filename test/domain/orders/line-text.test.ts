import test from 'ava';
import { lineText, quantityText } from '../../../src/domain/orders/line-text.ts';
import type { OrderLineRow, OrderRow } from '../../../src/domain/orders/order-views.ts';
import { computeQuote } from '../../../src/domain/orders/pricing.ts';
import { receiptText } from '../../../src/domain/orders/receipt.ts';

const featured = {
  product: 'featured' as const,
  listing_id: 2,
  listing_name: 'Acme Rockets',
  options: { weeks: 2, start_week: '2026-12-21' },
  unit: 'week' as const,
  quantity: 2,
  unit_price_cents: 9900,
  amount_cents: 19_800,
};
const billboard = {
  ...featured,
  product: 'billboard' as const,
  options: { start_date: '2026-12-01', days: 1 },
  unit: 'day' as const,
  quantity: 1,
  unit_price_cents: 1500,
  amount_cents: 1500,
};

test('a line reads "2 weeks × USD 99.00" with the listing by its name and the weeks it covers', (t) => {
  t.is(lineText(featured), 'Featured placement for Acme Rockets (weeks of 21 Dec and 28 Dec 2026): 2 weeks × USD 99.00');
  t.is(lineText(billboard), 'Billboard for Acme Rockets (on 1 Dec 2026): 1 day × USD 15.00');
  // Featured lines sold before start weeks existed started in the week they were paid.
  const legacy = { ...featured, options: { weeks: 1 }, quantity: 1 };
  t.is(
    lineText(legacy, 'USD', new Date('2026-12-24T10:00:00Z')),
    'Featured placement for Acme Rockets (week of 21 Dec 2026): 1 week × USD 99.00',
  );
  t.is(
    lineText({ ...featured, product: 'categories', unit: 'category', options: { categories: ['ai', 'hr'] } }).split(' (')[1],
    'AI, HR): 2 categories × USD 99.00',
  );
  t.is(
    lineText({ ...featured, product: 'unlock_section', unit: 'item', quantity: 1, options: { section: 'faqs' } }).split(' (')[1],
    'FAQs section): 1 item × USD 99.00',
  );
  t.is(quantityText({ unit: 'category', quantity: 3 }), '3 categories');
  t.is(quantityText({ unit: 'item', quantity: 1 }), '1 item');
});

test('the receipt names the listing and the units, never "listing 2"', (t) => {
  const vat = { country: 'DE', rate_bp: 1900, treatment: 'eu_consumer' as const, note: null };
  const quote = computeQuote([featured, billboard], null, vat);
  t.is(quote.subtotal_cents, 21_300);
  t.is(quote.vat.amount_cents, 4047);
  t.deepEqual(
    quote.lines.map((l) => l.vat_cents),
    [3762, 285],
  );
  const lines = quote.lines.map((l, position) => ({ ...l, id: position, order_id: 1, position, fulfilled_at: null, refunded_at: null }));
  const order = {
    number: 'LD-TEST-0001',
    currency: 'USD',
    quote,
    billing: { name: null, country: 'DE', vat_number: null },
    invoice_number: 7,
  };
  const text = receiptText(order as unknown as OrderRow, lines as OrderLineRow[], 'https://example.com/invoice');
  t.regex(
    text,
    /Featured placement for Acme Rockets \(weeks of 21 Dec and 28 Dec 2026\): 2 weeks × USD 99\.00; net USD 198\.00 \+ VAT USD 37\.62/,
  );
  t.regex(text, /Billboard for Acme Rockets \(on 1 Dec 2026\): 1 day × USD 15\.00/);
  t.false(text.includes('listing 2'));
});
