import { displayName } from '../display-names.ts';
import { isoWeekLabel, isoWeekStart } from '../../workflows/contracts/weeks.ts';
import { dayText, weeksText, weekOfText } from '../time/week-words.ts';
import { addDays, type ProductUnit } from './product-options.ts';

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

/**
 * The Mondays a line covers: a featured line's weeks from its start week, a paid launch's week.
 * Featured lines sold before start weeks existed started in the week they were paid (`paidAt`);
 * null when the line covers no weeks or they are not known yet.
 */
export function coveredMondays(line: Pick<LineFacts, 'product' | 'options'>, paidAt?: Date | null): string[] | null {
  const o = line.options;
  if (line.product === 'launch') return typeof o.week === 'string' ? [o.week] : null;
  if (line.product !== 'featured') return null;
  const start = typeof o.start_week === 'string' ? o.start_week : paidAt ? isoWeekStart(paidAt) : null;
  if (!start) return null;
  return Array.from({ length: o.weeks as number }, (_, i) => addDays(start, i * 7));
}

/** The weeks a line covers as ISO labels (what the API says), or null. */
export const coveredWeeks = (line: Pick<LineFacts, 'product' | 'options'>, paidAt?: Date | null) =>
  coveredMondays(line, paidAt)?.map(isoWeekLabel) ?? null;

/** The options in words: `weeks of 21 Dec and 28 Dec 2026`, `AI, Data`, `FAQs section`. */
export function optionsText(line: Pick<LineFacts, 'product' | 'options'>, paidAt?: Date | null): string {
  const o = line.options;
  switch (line.product) {
    case 'launch':
      return o.week ? weekOfText(o.week as string) : 'live at once';
    case 'featured': {
      const weeks = coveredMondays(line, paidAt);
      return weeks ? weeksText(weeks) : 'from the week of payment';
    }
    case 'categories':
      return (o.categories as string[]).map((slug) => displayName('category', slug)).join(', ');
    case 'billboard':
      return o.days === 1
        ? `on ${dayText(o.start_date as string)}`
        : `${dayText(o.start_date as string)} to ${dayText(addDays(o.start_date as string, (o.days as number) - 1))}`;
    case 'unlock_section':
      return `${displayName('section', o.section as string)} section`;
    default:
      return '';
  }
}

/** The listing a line is for, by its name (snapshotted into the line; lines before 020 were backfilled). */
export const listingText = (line: Pick<LineFacts, 'listing_id' | 'listing_name'>) =>
  line.listing_name ?? (line.listing_id === null ? '' : `listing ${line.listing_id}`);

/** One line in a sentence, for plain text: `Featured placement for Acme (weeks of 21 Dec and 28 Dec 2026): 2 weeks × USD 99.00`. */
export function lineText(line: LineFacts, currency = 'USD', paidAt?: Date | null): string {
  const listing = listingText(line);
  return `${productName(line.product)}${listing ? ` for ${listing}` : ''} (${optionsText(line, paidAt)}): ${unitPriceText(line, currency)}`;
}
