import type { Db } from './knex.ts';

interface SiteSeed {
  key: string;
  name: string;
  host: string | null;
  is_default: boolean;
  settings: { seller_country: string; free_queue_weeks: number; billboard_min_days: number };
}

const SITES: SiteSeed[] = [
  {
    key: 'main',
    name: 'Listing Directory',
    host: null,
    is_default: true,
    settings: { seller_country: 'IE', free_queue_weeks: 4, billboard_min_days: 7 },
  },
  {
    key: 'makers',
    name: 'Makers Weekly',
    host: 'makers.localhost',
    is_default: false,
    settings: { seller_country: 'IE', free_queue_weeks: 6, billboard_min_days: 14 },
  },
];

/**
 * Starting prices per unit (USD cents, excluding VAT; the unit is the product's, see unitOf):
 * a launch, a featured week, a category, a billboard day, a section. One unit costs what one
 * unit always did, except the billboard: a day is USD 15 (its 7-day minimum USD 105, above a
 * featured week, as it is the only banner that day). Admins change prices afterwards.
 */
const PRODUCTS = [
  {
    key: 'launch',
    name: 'Paid launch',
    description: 'Go live at once or in a week you choose; no badge or founder profile needed.',
    price_cents: 4900,
    options: { week: { type: 'string', format: 'YYYY-Www or YYYY-MM-DD (a Monday)', required: false } },
  },
  {
    key: 'featured',
    name: 'Featured placement',
    description: 'Pinned above the weekly ranking; priced per week, 1 to 12 weeks.',
    price_cents: 9900,
    options: { weeks: { type: 'integer', min: 1, max: 12, required: true } },
  },
  {
    key: 'categories',
    name: 'Category placement',
    description: 'Listed at the top of the categories you choose; priced per category, up to 5.',
    price_cents: 2900,
    options: { categories: { type: 'array', items: 'category slug', min: 1, max: 5, required: true } },
  },
  {
    key: 'billboard',
    name: 'Billboard',
    description: 'The banner on every page of the site; priced per day you book.',
    price_cents: 1500,
    options: {
      days: { type: 'integer', min: 'site billboard_min_days', default: 7, required: false },
      start_date: { type: 'string', format: 'YYYY-MM-DD', required: true },
    },
  },
  {
    key: 'unlock_section',
    name: 'Unlock a listing section',
    description: 'Show milestones, the founder story or FAQs on a free listing.',
    price_cents: 1500,
    options: { section: { type: 'string', enum: ['milestones', 'story', 'faqs'], required: true } },
  },
];

const QUESTIONS = [
  'What are you building, in one sentence?',
  'Who is it for, and what did they do before it existed?',
  'What was the first version, and how long did it take to ship?',
  'What is the hardest problem you have solved so far?',
  'How do you find your users?',
  'What would you tell a founder starting today?',
];

/** Inserts the default sites, products and interview questions; safe to run on every start. */
export async function seed(db: Db): Promise<void> {
  await db('sites').insert(SITES).onConflict('key').ignore();
  const sites = await db('sites').select('id', 'key');
  for (const site of sites) {
    const rows = PRODUCTS.map((p) => ({ ...p, site_id: site.id, needs_listing: true }));
    await db('products').insert(rows).onConflict(['site_id', 'key']).ignore();
    const [{ count }] = await db('interview_questions').where({ site_id: site.id }).count({ count: '*' });
    if (Number(count) === 0) {
      await db('interview_questions').insert(QUESTIONS.map((text, i) => ({ site_id: site.id, position: i + 1, text })));
    }
  }
}
