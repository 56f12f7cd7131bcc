/**
 * THE names people read for the slugs the service keeps (categories, social platforms, listing
 * sections): pages, mails, order lines and invoices name them from this table, never by
 * title-casing a slug ("Ai", "Faqs", "Github" are wrong). A slug missing here reads as its words.
 */

const CATEGORIES: Record<string, string> = {
  'developer-tools': 'Developer tools',
  productivity: 'Productivity',
  marketing: 'Marketing',
  analytics: 'Analytics',
  design: 'Design',
  ai: 'AI',
  finance: 'Finance',
  ecommerce: 'E-commerce',
  education: 'Education',
  health: 'Health',
  security: 'Security',
  communication: 'Communication',
  hr: 'HR',
  sales: 'Sales',
  'customer-support': 'Customer support',
  data: 'Data',
  'no-code': 'No-code',
  games: 'Games',
  travel: 'Travel',
  other: 'Other',
};

const PLATFORMS: Record<string, string> = {
  twitter: 'X (Twitter)',
  linkedin: 'LinkedIn',
  github: 'GitHub',
  facebook: 'Facebook',
  instagram: 'Instagram',
  youtube: 'YouTube',
  tiktok: 'TikTok',
  discord: 'Discord',
  producthunt: 'Product Hunt',
  mastodon: 'Mastodon',
  bluesky: 'Bluesky',
  threads: 'Threads',
};

const SECTIONS: Record<string, string> = {
  milestones: 'Milestones',
  story: 'Founder story',
  faqs: 'FAQs',
};

/** Every table by what it names. */
export const DISPLAY_NAMES = { category: CATEGORIES, platform: PLATFORMS, section: SECTIONS } as const;

export type NamedKind = keyof typeof DISPLAY_NAMES;

/** A slug's name for people: `ai` → "AI", `github` → "GitHub", `faqs` → "FAQs". */
export function displayName(kind: NamedKind, slug: string): string {
  return DISPLAY_NAMES[kind][slug] ?? slug.replace(/[-_]+/g, ' ');
}
