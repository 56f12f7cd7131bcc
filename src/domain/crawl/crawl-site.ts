import type { CheerioAPI } from 'cheerio';
import { loadHtml } from './cheerio.ts';
import { createCrawlAgent, fetchPage } from './fetch-page.ts';
import { assertRobotsAllow, fetchRobots } from './robots.ts';
import type { RobotsRules } from './robots.ts';
import { sameCompany } from '../company.ts';
import { parseHttpUrl } from '../../lib/urls.ts';
import { CrawlError, invalidCrawlUrl } from './types.ts';
import type { CrawlOptions, CrawlResult, CrawledPage } from './types.ts';

/** Kinds of secondary pages worth fetching, most useful first. */
const PAGE_KINDS: { kind: string; pattern: RegExp }[] = [
  { kind: 'about', pattern: /\b(about|about[-_ ]?us|our[-_ ]story|who[-_ ]we[-_ ]are|story)\b/i },
  { kind: 'company', pattern: /\b(company|imprint|impressum)\b/i },
  { kind: 'team', pattern: /\b(team|people|founders)\b/i },
  { kind: 'pricing', pattern: /\b(pricing|prices|plans)\b/i },
  { kind: 'faq', pattern: /\b(faqs?|frequently[-_ ]asked[-_ ]questions|questions)\b/i },
  { kind: 'contact', pattern: /\b(contact|contact[-_ ]us|get[-_ ]in[-_ ]touch)\b/i },
];

/**
 * Crawls a site: robots.txt, the home page, then up to maxPages-1 same-site pages that look
 * like about / company / team / pricing / FAQ / contact. Throws CrawlError when the home page
 * cannot be fetched; failing secondary pages are skipped.
 */
export async function crawlSite(url: string, options: CrawlOptions): Promise<CrawlResult> {
  const start = parseHttpUrl(url);
  if (!start) throw invalidCrawlUrl(url);
  const agent = createCrawlAgent(options.allowPrivateNetworks);
  // robots.txt per origin, fetched once; every request and redirect hop is checked against it.
  const robotsByOrigin = new Map<string, Promise<RobotsRules>>();
  const robotsFor = (url: string): Promise<RobotsRules> => {
    const origin = new URL(url).origin;
    let rules = robotsByOrigin.get(origin);
    if (!rules) {
      rules = fetchRobots(url, options, agent);
      robotsByOrigin.set(origin, rules);
    }
    return rules;
  };
  const beforeRequest = async (url: string) => assertRobotsAllow(await robotsFor(url), url);
  try {
    const home = await fetchPage(start.href, options, agent, { beforeRequest });
    const robots = await robotsFor(home.url);
    const pages: CrawledPage[] = [{ url: home.url, html: home.body }];
    const candidates = pickSecondaryPages(home.url, home.body, robots, Math.max(0, options.maxPages - 1));
    for (const candidate of candidates) {
      if (pages.length >= options.maxPages) break;
      try {
        const page = await fetchPage(candidate, options, agent, { beforeRequest });
        if (pages.some((p) => p.url === page.url)) continue;
        if (!sameCompany(page.url, home.url)) continue;
        pages.push({ url: page.url, html: page.body });
      } catch (err) {
        if (!(err instanceof CrawlError)) throw err;
        // A secondary page that fails is skipped.
      }
    }
    return { url: home.url, pages };
  } finally {
    await agent.destroy().catch(() => {});
  }
}

/** Same-site links of the home page that look like about/company/team/pricing/FAQ/contact pages. */
export function pickSecondaryPages(homeUrl: string, html: string, robots: RobotsRules | null, limit: number): string[] {
  if (limit <= 0) return [];
  let $: CheerioAPI;
  try {
    $ = loadHtml(html);
  } catch {
    return [];
  }
  const home = new URL(homeUrl);
  home.hash = '';
  const seen = new Set<string>([home.href]);
  const ranked: { url: string; rank: number; order: number }[] = [];
  let order = 0;
  $('a[href]').each((_, el) => {
    const href = ($(el).attr('href') ?? '').trim();
    const target = parseHttpUrl(URL.parse(href, home)?.href ?? '');
    if (!target) return;
    target.hash = '';
    if (seen.has(target.href) || !sameCompany(target, home)) return;
    if (/\.(pdf|png|jpe?g|gif|svg|webp|zip|mp4|mp3|xml|json|css|js)$/i.test(target.pathname)) return;
    const path = decodeSafe(target.pathname);
    const text = $(el).text().replace(/\s+/g, ' ').trim();
    let rank = -1;
    for (let i = 0; i < PAGE_KINDS.length; i++) {
      const { pattern } = PAGE_KINDS[i]!;
      if (pattern.test(path) || (text.length <= 40 && pattern.test(text))) {
        rank = i;
        break;
      }
    }
    if (rank < 0) return;
    if (robots && !robots.isAllowed(target.href)) return;
    seen.add(target.href);
    ranked.push({ url: target.href, rank, order: order++ });
  });
  ranked.sort((a, b) => a.rank - b.rank || a.order - b.order);
  return ranked.slice(0, limit).map((r) => r.url);
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
