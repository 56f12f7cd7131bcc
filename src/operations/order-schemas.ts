import { z } from 'zod';
import { PRODUCT_KEYS, PRODUCT_UNITS } from '../domain/orders/product-options.ts';
import { Id } from './schemas.ts';

/** Schemas of the orders operations. */

export const OrderItem = z
  .object({
    // The keys any site can sell, so the document names them; a site that does not sell one says so (400).
    product: z
      .enum(PRODUCT_KEYS, { error: (issue) => `Unknown product "${String(issue.input)}"; see list_products` })
      .describe('Product key from list_products'),
    listing_id: Id.optional().describe('One of your listings; required for products with needs_listing'),
    options: z.record(z.string(), z.unknown()).optional().describe("Options validated by the product's `options` schema (list_products)"),
  })
  .strict();

const COUNTRY_MESSAGE = 'Enter a two-letter country code (ISO 3166-1 alpha-2), e.g. IE';
const Country = z
  .string({ error: COUNTRY_MESSAGE })
  // On the input too, so that the OpenAPI document says which strings are accepted.
  .regex(/^\s*[A-Za-z]{2}\s*$/, { message: COUNTRY_MESSAGE, abort: true })
  .trim()
  .transform((v) => v.toUpperCase())
  .pipe(z.string().regex(/^[A-Z]{2}$/, COUNTRY_MESSAGE));

/** What one unit of a product is; prices are per unit. */
export const ProductUnit = z.enum(PRODUCT_UNITS);

const VatNumber = z
  .string()
  // The prefix rule as a pattern, so the document says it; a prefix of another country than
  // billing_country, a wrong format or checksum stay the validator's 422 vat_number_invalid (vat.ts).
  .regex(/^[\s.-]*[A-Za-z]{2}/, 'Must start with the prefix of an EU member state: billing_country’s (EL for Greece)')
  .trim()
  .min(4, 'A VAT number has at least 4 characters')
  .max(20, 'A VAT number has at most 20 characters');

export const QuoteBody = {
  items: z.array(OrderItem).min(1).max(20).describe('What to buy; at most 20 items'),
  billing_country: Country.describe('ISO 3166-1 alpha-2 code of the buyer, e.g. IE'),
  vat_number: VatNumber.optional().describe(
    'EU businesses: a valid VAT number of billing_country → reverse charge. It starts with billing_country’s prefix ' +
      '(EL for Greece); another country’s number, a wrong format or checksum is 422 vat_number_invalid',
  ),
  promo_code: z.string().max(64).optional().describe('Exactly as the user typed it'),
};

/**
 * The billing details the person gives on the pay page: the country and VAT number are the
 * quote's own fields (QuoteBody), the name goes on the invoice.
 */
export const BillingDetails = z.object({
  name: z.string().trim().max(200, 'At most 200 characters').optional().describe('Name on the invoice (a person or a company)'),
  country: QuoteBody.billing_country,
  vat_number: QuoteBody.vat_number,
});

const QuoteLine = z.object({
  product: z.string(),
  listing_id: Id.nullable(),
  listing_name: z.string().nullable().describe('The listing as it was named when the line was priced'),
  options: z.record(z.string(), z.unknown()),
  unit: ProductUnit.describe('What one unit is (list_products)'),
  quantity: z.int().describe('Units bought: weeks, days, categories, or 1'),
  unit_price_cents: z.int().describe('Price of one unit, excluding VAT'),
  amount_cents: z.int().describe('quantity × unit_price_cents, before any discount'),
  discount_cents: z.int(),
  net_cents: z.int(),
  vat_cents: z.int(),
  weeks: z
    .array(z.string())
    .nullable()
    .describe('The ISO weeks the line covers (a featured placement from its start_week, a paid launch in its week); null for other lines'),
});

const QuoteFields = {
  currency: z.literal('USD'),
  subtotal_cents: z.int(),
  discount_cents: z.int().describe('What the promo code takes off, before VAT'),
  net_cents: z.int(),
  vat: z.object({
    country: z.string(),
    rate_bp: z.int().describe('VAT rate in basis points (2300 = 23 %)'),
    treatment: z.enum(['domestic', 'eu_consumer', 'reverse_charge', 'outside_eu']),
    note: z.string().nullable(),
    amount_cents: z.int(),
  }),
  total_cents: z.int(),
  promo: z.object({ code: z.string(), takes_off_cents: z.int() }).nullable(),
};

export const Quote = z.object({ lines: z.array(QuoteLine), ...QuoteFields });

/** quote_order's answer: the price and where the current week stands, before anything is charged. */
export const QuoteWithWeek = Quote.extend({
  current_week: z
    .object({
      week: z.string().describe('ISO week now'),
      ends_at: z.string().describe('When it ends (next Monday 00:00 UTC)'),
      hours_left: z.number().describe('Hours left in it, rounded down'),
      short: z
        .boolean()
        .describe("Less than the site's short-week hours are left: week-based lines start next week unless start_week says this week"),
      notice: z.string().describe('The same in a sentence, as the pay page says it'),
    })
    .describe('Where the current week stands'),
});

export const OrderStatus = z.enum(['pending', 'paid', 'fulfilled', 'expired', 'canceled', 'refunded', 'attention']);

export const Order = z.object({
  number: z.string(),
  status: OrderStatus,
  ...QuoteFields,
  lines: z.array(QuoteLine.extend({ fulfilled: z.boolean(), fulfilled_at: z.string().nullable() })),
  billing: z.object({ name: z.string().nullable(), country: z.string(), vat_number: z.string().nullable() }),
  checkout_url: z.string().nullable().describe('Where the person pays; only while pending'),
  expires_at: z.string(),
  payment_method: z.string().nullable(),
  paid_at: z.string().nullable(),
  invoice_url: z.string().nullable(),
  created_at: z.string(),
});
