import { z } from 'zod';
import { CATEGORY_SLUGS } from '../crawl/categories.ts';
import { isoWeekMonday } from '../../workflows/contracts/weeks.ts';

/** Products the catalog knows; a product row with another key cannot be ordered. */
export const PRODUCT_KEYS = ['launch', 'featured', 'categories', 'billboard', 'unlock_section'] as const;
export type ProductKey = (typeof PRODUCT_KEYS)[number];

/** What one unit of a product is: prices are per unit (a week featured, a day on the billboard, a category). */
export const PRODUCT_UNITS = ['week', 'day', 'category', 'item'] as const;
export type ProductUnit = (typeof PRODUCT_UNITS)[number];

const UNITS: Record<ProductKey, ProductUnit> = {
  launch: 'item',
  featured: 'week',
  categories: 'category',
  billboard: 'day',
  unlock_section: 'item',
};

/** The unit a product's price is for. */
export const unitOf = (product: ProductKey): ProductUnit => UNITS[product];

/** How many units an item of `product` with these (validated) options buys. */
export function quantityOf(product: ProductKey, options: Record<string, unknown>): number {
  switch (unitOf(product)) {
    case 'week':
      return options.weeks as number;
    case 'day':
      return options.days as number;
    case 'category':
      return (options.categories as string[]).length;
    case 'item':
      return 1;
  }
}

export const MAX_WEEKS_AHEAD = 12;
export const MAX_BILLBOARD_DAYS = 90;
const DAY_MS = 86_400_000;

const IsoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Must be a date YYYY-MM-DD')
  .refine((v) => {
    const d = new Date(`${v}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
  }, 'Must be a real calendar date');

/** `2026-W49` or the Monday `2026-11-30`; normalised to the Monday. */
const IsoWeek = z.string().transform((v, ctx) => {
  const monday = /^\d{4}-W\d{2}$/.test(v) ? isoWeekMonday(v) : IsoDate.safeParse(v).success ? v : null;
  if (!monday || new Date(`${monday}T00:00:00Z`).getUTCDay() !== 1) {
    ctx.addIssue({ code: 'custom', message: 'Must be an ISO week (YYYY-Www) or its Monday (YYYY-MM-DD)' });
    return z.NEVER;
  }
  return monday;
});

const LaunchWeek = IsoWeek.describe(
  `ISO week (YYYY-Www) or its Monday (YYYY-MM-DD), this week or one of the next ${MAX_WEEKS_AHEAD}; absent: go live at once`,
);

const StartWeek = IsoWeek.describe(
  'First week featured: ISO week (YYYY-Www) or its Monday (YYYY-MM-DD), a week in which the listing is live. ' +
    "Absent: the listing's launch week when it is scheduled (or the week of a paid launch in the same order), else this week, " +
    "or next week when less than the site's short-week hours of this week are left",
);

const built = new Map<string, ReturnType<typeof buildOptionsSchema>>();

/**
 * The options schema of each product: the one list_products publishes (as JSON Schema) and the
 * one every order item is validated with. `billboardMinDays` is the site's setting. Built once
 * per product and minimum (building a zod schema costs far more than using it).
 */
export function optionsSchema(product: ProductKey, billboardMinDays: number) {
  const key = `${product}:${billboardMinDays}`;
  let schema = built.get(key);
  if (!schema) built.set(key, (schema = buildOptionsSchema(product, billboardMinDays)));
  return schema;
}

function buildOptionsSchema(product: ProductKey, billboardMinDays: number) {
  switch (product) {
    case 'launch':
      return z.object({ week: LaunchWeek.optional() }).strict();
    case 'featured':
      return z
        .object({
          weeks: z.int().min(1).max(MAX_WEEKS_AHEAD).describe('Weeks featured, one after another from start_week'),
          start_week: StartWeek.optional(),
        })
        .strict();
    case 'categories':
      return z
        .object({
          categories: z
            .array(z.enum(CATEGORY_SLUGS))
            .min(1)
            .max(5)
            .refine((v) => new Set(v).size === v.length, 'Must not repeat a category')
            .describe('1 to 5 category slugs'),
        })
        .strict();
    case 'billboard':
      return z
        .object({
          start_date: IsoDate.describe('First day (UTC), after today'),
          days: z
            .int()
            .min(billboardMinDays)
            .max(MAX_BILLBOARD_DAYS)
            .default(billboardMinDays)
            .describe(`At least ${billboardMinDays} days`),
        })
        .strict();
    case 'unlock_section':
      return z.object({ section: z.enum(['milestones', 'story', 'faqs']) }).strict();
  }
}

/** JSON Schema of a product's options, as published by list_products. */
export function optionsJsonSchema(product: ProductKey, billboardMinDays: number): Record<string, unknown> {
  const key = `${product}:${billboardMinDays}`;
  let schema = published.get(key);
  if (!schema) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(optionsSchema(product, billboardMinDays), { io: 'input' }) as Record<
      string,
      unknown
    >;
    published.set(key, (schema = rest));
  }
  return schema;
}

const published = new Map<string, Record<string, unknown>>();

export const isProductKey = (key: string): key is ProductKey => (PRODUCT_KEYS as readonly string[]).includes(key);

/** YYYY-MM-DD `days` after `date`. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}
