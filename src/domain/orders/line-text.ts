import type { ProductUnit } from './product-options.ts';

/**
 * How an order line reads to a person, the same on the pay page, the orders pages, the invoice
 * and the receipt mail: the product, the listing by its name, the options, "4 weeks × USD 99.00".
 */

/** `4900` → `USD 49.00`. */
export const formatCents = (cents: number, currency = 'USD') => `${currency} ${(cents / 100).toFixed(2)}`;

const PRODUCT_NAMES: Record<string, string> = {
  launch: 'Paid launch',
  featured: 'Featured placement',
  categories: 'Category placement',
  billboard: 'Billboard',
  unlock_section: 'Unlocked listing section',
};

const UNIT_NAMES: Record<ProductUnit, [string, string]> = {
  week: ['week', 'weeks'],
  day: ['day', 'days'],
  category: ['category', 'categories'],
  item: ['item', 'items'],
};

/** What a line text needs of an order line (a quote line or an order_lines row). */
export interface LineFacts {
  product: string;
  listing_id: number | null;
  /** The listing's name, so that pages, orders and invoices never say "listing 2". */
  listing_name: string | null;
  options: Record<string, unknown>;
  unit: ProductUnit;
  quantity: number;
  unit_price_cents: number;
}

export const productName = (product: string) => PRODUCT_NAMES[product] ?? product;

/** `4 weeks`, `1 day`, `2 categories`. */
export function quantityText(line: Pick<LineFacts, 'unit' | 'quantity'>): string {
  const [one, many] = UNIT_NAMES[line.unit] ?? UNIT_NAMES.item;
  return `${line.quantity} ${line.quantity === 1 ? one : many}`;
}

/** `4 weeks × USD 99.00`. */
export const unitPriceText = (line: Pick<LineFacts, 'unit' | 'quantity' | 'unit_price_cents'>, currency = 'USD') =>
  `${quantityText(line)} × ${formatCents(line.unit_price_cents, currency)}`;

/** The options in words: `from 2026-12-01`, `ai, data`, `section: story`. */
export function optionsText(line: Pick<LineFacts, 'product' | 'options'>): string {
  const o = line.options;
  switch (line.product) {
    case 'launch':
      return o.week ? `week of ${o.week as string}` : 'live at once';
    case 'featured':
      return 'from the week of payment';
    case 'categories':
      return (o.categories as string[]).join(', ');
    case 'billboard':
      return `from ${o.start_date as string}`;
    case 'unlock_section':
      return `section: ${o.section as string}`;
    default:
      return '';
  }
}

/** The listing a line is for, by its name (snapshotted into the line; lines before 020 were backfilled). */
export const listingText = (line: Pick<LineFacts, 'listing_id' | 'listing_name'>) =>
  line.listing_name ?? (line.listing_id === null ? '' : `listing ${line.listing_id}`);

/** One line in a sentence, for plain text: `Featured placement for Acme (from the week of payment): 4 weeks × USD 99.00`. */
export function lineText(line: LineFacts, currency = 'USD'): string {
  const listing = listingText(line);
  return `${productName(line.product)}${listing ? ` for ${listing}` : ''} (${optionsText(line)}): ${unitPriceText(line, currency)}`;
}
