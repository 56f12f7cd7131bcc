/** Listing categories the crawler can suggest. */
export const CATEGORY_SLUGS = [
  'developer-tools', 'productivity', 'marketing', 'analytics', 'design', 'ai', 'finance', 'ecommerce', 'education',
  'health', 'security', 'communication', 'hr', 'sales', 'customer-support', 'data', 'no-code', 'games', 'travel',
  'other',
] as const;

export type CategorySlug = (typeof CATEGORY_SLUGS)[number];

/** Keywords per category (matched as whole words, case-insensitive). */
const KEYWORDS: Record<Exclude<CategorySlug, 'other'>, string[]> = {
  'developer-tools': ['developer', 'developers', 'api', 'apis', 'sdk', 'code', 'coding', 'devops', 'deploy', 'deployment', 'ci/cd', 'debugging', 'git', 'github', 'open source', 'cli', 'programming', 'engineers', 'engineering teams', 'infrastructure', 'hosting', 'serverless', 'database', 'databases'],
  productivity: ['productivity', 'productive', 'task', 'tasks', 'to-do', 'todo', 'notes', 'note-taking', 'calendar', 'scheduling', 'workflow', 'workflows', 'project management', 'organize', 'focus', 'time tracking', 'collaboration'],
  marketing: ['marketing', 'seo', 'campaign', 'campaigns', 'newsletter', 'email marketing', 'social media', 'advertising', 'ads', 'growth', 'brand', 'content marketing', 'audience', 'influencer'],
  analytics: ['analytics', 'metrics', 'dashboard', 'dashboards', 'insights', 'reporting', 'reports', 'tracking', 'kpi', 'kpis', 'visualization', 'business intelligence'],
  design: ['design', 'designers', 'prototype', 'prototyping', 'ui', 'ux', 'figma', 'mockup', 'mockups', 'illustration', 'icons', 'fonts', 'typography', 'graphics', 'logo', 'wireframe'],
  ai: ['ai', 'artificial intelligence', 'machine learning', 'llm', 'llms', 'gpt', 'chatbot', 'neural', 'generative', 'genai', 'ml', 'deep learning', 'ai-powered', 'agents', 'copilot'],
  finance: ['finance', 'financial', 'accounting', 'invoice', 'invoices', 'invoicing', 'payments', 'payment', 'banking', 'bank', 'budget', 'budgeting', 'expenses', 'tax', 'taxes', 'payroll', 'investing', 'crypto', 'fintech', 'bookkeeping'],
  ecommerce: ['ecommerce', 'e-commerce', 'online store', 'shop', 'shopify', 'storefront', 'checkout', 'cart', 'merchants', 'sell online', 'retail', 'marketplace', 'dropshipping', 'inventory'],
  education: ['education', 'learn', 'learning', 'courses', 'course', 'students', 'teachers', 'school', 'schools', 'tutoring', 'lessons', 'classroom', 'e-learning', 'edtech', 'training'],
  health: ['health', 'healthcare', 'medical', 'fitness', 'wellness', 'patients', 'doctors', 'clinic', 'mental health', 'nutrition', 'workout', 'therapy', 'sleep', 'meditation'],
  security: ['security', 'secure', 'privacy', 'encryption', 'encrypted', 'password', 'passwords', 'authentication', 'vulnerability', 'vulnerabilities', 'compliance', 'threat', 'threats', 'firewall', 'vpn', 'cybersecurity', 'sso', 'zero trust'],
  communication: ['chat', 'messaging', 'messages', 'video calls', 'video conferencing', 'meetings', 'team communication', 'email', 'inbox', 'voice', 'calls', 'slack'],
  hr: ['hr', 'hiring', 'recruiting', 'recruitment', 'candidates', 'employees', 'onboarding', 'human resources', 'talent', 'job', 'jobs', 'applicant', 'people operations', 'benefits'],
  sales: ['sales', 'crm', 'leads', 'lead generation', 'prospecting', 'pipeline', 'deals', 'outreach', 'cold email', 'sales teams', 'quotes', 'revenue'],
  'customer-support': ['customer support', 'customer service', 'helpdesk', 'help desk', 'support tickets', 'tickets', 'ticketing', 'live chat', 'knowledge base', 'customer success', 'customer experience'],
  data: ['data', 'etl', 'data pipeline', 'data pipelines', 'warehouse', 'data warehouse', 'sql', 'spreadsheet', 'spreadsheets', 'datasets', 'scraping', 'big data', 'data engineering'],
  'no-code': ['no-code', 'no code', 'nocode', 'low-code', 'low code', 'without code', 'without coding', 'drag-and-drop', 'drag and drop', 'website builder', 'app builder', 'visual builder'],
  games: ['game', 'games', 'gaming', 'gamers', 'players', 'multiplayer', 'esports', 'play', 'puzzle', 'rpg'],
  travel: ['travel', 'trips', 'trip', 'flights', 'hotels', 'booking', 'vacation', 'itinerary', 'tourism', 'travelers', 'travellers', 'destinations'],
};

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const PATTERNS = Object.entries(KEYWORDS).map(([slug, words]) => ({
  slug,
  re: new RegExp(`(?<![\\p{L}\\d-])(?:${words.map(escape).join('|')})(?![\\p{L}\\d-])`, 'giu'),
}));

export interface CategoryScore {
  slug: string;
  score: number;
  /** The first text that matched. */
  text: string;
}

/**
 * Scores weighted texts (e.g. name and headline weigh more than headings) against the category
 * keywords; best first, at most 3, empty when nothing scores.
 */
export function scoreCategories(texts: { text: string; weight: number }[]): CategoryScore[] {
  const scores: CategoryScore[] = [];
  for (const { slug, re } of PATTERNS) {
    let score = 0;
    let first = '';
    for (const { text, weight } of texts) {
      const hits = text.match(re);
      if (hits && hits.length) {
        score += Math.min(hits.length, 3) * weight;
        if (!first) first = text;
      }
    }
    if (score > 0) scores.push({ slug, score, text: first });
  }
  scores.sort((a, b) => b.score - a.score || CATEGORY_SLUGS.indexOf(a.slug as CategorySlug) - CATEGORY_SLUGS.indexOf(b.slug as CategorySlug));
  const best = scores[0]?.score ?? 0;
  // Keep categories that carry real weight relative to the best one.
  return scores.filter((s) => s.score >= Math.max(2, best / 3)).slice(0, 3);
}
