import { registrableDomain } from '../company.ts';
import { scoreCategories } from './categories.ts';
import { extractFacts } from './extract-facts.ts';
import { extractFaqs } from './extract-faqs.ts';
import { extractSocials } from './extract-socials.ts';
import { fragment, hasType, ORGANIZATION_TYPES, PRODUCT_TYPES, str } from './json-ld.ts';
import type { JsonLdNode } from './json-ld.ts';
import { metaContent, parsePage } from './page.ts';
import type { ParsedPage } from './page.ts';
import { absoluteUrl, clean, EMAIL_RE, isEmail, snippet, snippetAround, truncate } from './text.ts';
import { LIMITS } from '../fields.ts';
import type { CrawlResult, DraftContent, DraftFields, Evidence } from './types.ts';

const MAX_HEADLINE = LIMITS.headline;
const MAX_SUMMARY = LIMITS.summary;

export interface Found<T> {
  value: T;
  evidence: Evidence;
}

export function emptyDraft(): DraftContent {
  return {
    fields: {
      name: null,
      headline: null,
      summary: null,
      logo_url: null,
      image_url: null,
      facts: {},
      socials: {},
      faqs: [],
      categories: [],
      contact_email: null,
    },
    evidence: {},
  };
}

/** Drafts listing fields from crawled pages (home page first). Pure; never throws. */
export function extractDraft(result: CrawlResult): DraftContent {
  const draft = emptyDraft();
  const pages: ParsedPage[] = [];
  for (const p of result?.pages ?? []) {
    if (!p || typeof p.url !== 'string') continue;
    try {
      pages.push(parsePage(p.url, typeof p.html === 'string' ? p.html : ''));
    } catch {
      // An unparseable page contributes nothing.
    }
  }
  const home = pages[0];
  if (!home) return draft;
  const { fields, evidence } = draft;
  const put = <K extends keyof DraftFields>(key: K, found: Found<DraftFields[K]> | null) => {
    if (!found) return;
    fields[key] = found.value;
    evidence[key] = found.evidence;
  };

  const name = safe(() => findName(home));
  put('name', name);
  put(
    'headline',
    safe(() => findHeadline(home, name?.value ?? null)),
  );
  put(
    'summary',
    safe(() => findSummary(home)),
  );
  put(
    'logo_url',
    safe(() => findLogo(home)),
  );
  put(
    'image_url',
    safe(() => findImage(home)),
  );

  const facts = safe(() => extractFacts(pages));
  if (facts) {
    fields.facts = facts.facts;
    for (const [k, ev] of Object.entries(facts.evidence)) evidence[`facts.${k}`] = ev;
  }
  const socials = safe(() => extractSocials(pages));
  if (socials) {
    fields.socials = socials.socials;
    for (const [k, ev] of Object.entries(socials.evidence)) evidence[`socials.${k}`] = ev;
  }
  const faqs = safe(() => extractFaqs(pages));
  if (faqs && faqs.faqs.length && faqs.evidence) put('faqs', { value: faqs.faqs, evidence: faqs.evidence });

  put(
    'categories',
    safe(() => findCategories(home, fields)),
  );
  put(
    'contact_email',
    safe(() => findContactEmail(pages, result.url ?? home.url)) ??
      (fields.facts.email && evidence['facts.email'] ? { value: fields.facts.email, evidence: evidence['facts.email'] } : null),
  );
  return draft;
}

function safe<T>(fn: () => T): T | null {
  try {
    return fn() ?? null;
  } catch {
    return null;
  }
}

const ev = (page: ParsedPage, s: string): Evidence => ({ source_url: page.url, snippet: snippet(s) });

/** Nodes of the page that describe the organization or product, most specific first. */
function primaryNodes(page: ParsedPage): JsonLdNode[] {
  return [
    ...page.jsonLd.filter((n) => hasType(n, ...ORGANIZATION_TYPES)),
    ...page.jsonLd.filter((n) => hasType(n, ...PRODUCT_TYPES)),
    ...page.jsonLd.filter((n) => hasType(n, 'WebSite')),
  ];
}

const TITLE_SEPARATORS = /\s+[|\-–—·•:]\s+|:\s+|\s+::\s+/;
const GENERIC_TITLE = /^(home|homepage|home page|welcome|index|start|main|landing|official site|official website)$/i;

export function splitTitle(title: string): string[] {
  return clean(title)
    .split(TITLE_SEPARATORS)
    .map((s) => s.trim())
    .filter(Boolean);
}

function letters(s: string): string {
  return s.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/** The brand part of a <title>: the part matching the domain, else the first non-generic part. */
export function brandFromTitle(title: string, url: string): string | null {
  const parts = splitTitle(title);
  if (!parts.length) return null;
  if (parts.length === 1) return parts[0]!.length <= 60 ? parts[0]! : null;
  let label = '';
  try {
    const host = new URL(url).hostname;
    label = letters((registrableDomain(host) ?? host).split('.')[0] ?? '');
  } catch {
    // no domain hint
  }
  if (label.length >= 3) {
    const match = parts.find((p) => letters(p) === label || (letters(p).length <= label.length + 6 && letters(p).includes(label)));
    if (match) return match;
  }
  const candidates = parts.filter((p) => !GENERIC_TITLE.test(p));
  const first = candidates[0];
  if (!first) return null;
  // "Build faster apps | Acme": a long first part and a short last one → the last is the brand.
  const last = candidates[candidates.length - 1]!;
  if (candidates.length > 1 && first.split(' ').length > 4 && last.split(' ').length <= 3) return last;
  return first.length <= 60 ? first : null;
}

function findName(page: ParsedPage): Found<string> | null {
  for (const node of primaryNodes(page)) {
    const name = clean(str(node.name));
    if (name && name.length <= 80) return { value: name, evidence: ev(page, fragment('name', node.name)) };
  }
  const meta = metaContent(page, 'og:site_name', 'application-name', 'apple-mobile-web-app-title');
  if (meta && meta.value.length <= 80) return { value: meta.value, evidence: ev(page, meta.snippet) };
  const title = clean(page.$('title').first().text());
  const brand = title ? brandFromTitle(title, page.url) : null;
  if (brand) return { value: brand, evidence: ev(page, `<title>${title}</title>`) };
  return null;
}

/** A title with the brand part removed, or null when nothing else remains. */
function withoutBrand(title: string, name: string | null): string | null {
  const parts = splitTitle(title);
  if (!name) return clean(title) || null;
  const rest = parts.filter((p) => letters(p) !== letters(name));
  if (!rest.length) return null;
  if (rest.length === parts.length) return clean(title);
  const generic = rest.filter((p) => !GENERIC_TITLE.test(p));
  return generic.length ? generic.join(' - ') : null;
}

function findHeadline(page: ParsedPage, name: string | null): Found<string> | null {
  const meta = metaContent(page, 'og:title', 'twitter:title');
  if (meta) {
    const h = withoutBrand(meta.value, name);
    if (h) return { value: truncate(h, MAX_HEADLINE), evidence: ev(page, meta.snippet) };
  }
  const h1 = clean(page.$('h1').first().text());
  if (h1 && (!name || letters(h1) !== letters(name))) {
    return { value: truncate(h1, MAX_HEADLINE), evidence: ev(page, `<h1>${h1}</h1>`) };
  }
  const title = clean(page.$('title').first().text());
  if (title && name) {
    const parts = splitTitle(title);
    const rest = parts.filter((p) => letters(p) !== letters(name) && !GENERIC_TITLE.test(p));
    if (rest.length && rest.length < parts.length) {
      return { value: truncate(rest.join(' - '), MAX_HEADLINE), evidence: ev(page, `<title>${title}</title>`) };
    }
  }
  return null;
}

function findSummary(page: ParsedPage): Found<string> | null {
  const meta = metaContent(page, 'description', 'og:description', 'twitter:description');
  if (meta && meta.value.length >= 10) return { value: truncate(meta.value, MAX_SUMMARY), evidence: ev(page, meta.snippet) };
  for (const node of primaryNodes(page)) {
    const d = clean(str(node.description));
    if (d.length >= 10) return { value: truncate(d, MAX_SUMMARY), evidence: ev(page, fragment('description', d)) };
  }
  let found: Found<string> | null = null;
  page.$('main p, article p, section p, body p').each((_, el) => {
    const t = clean(page.$(el).text());
    if (t.length >= 40 && /[.!?…]$|\s\S+\s/.test(t) && !/cookie|javascript/i.test(t)) {
      found = { value: truncate(t, MAX_SUMMARY), evidence: ev(page, t) };
      return false;
    }
    return undefined;
  });
  return found;
}

const findLogo = (page: ParsedPage): Found<string> | null => logoCandidates(page)[0] ?? null;
const findImage = (page: ParsedPage): Found<string> | null => imageCandidates(page)[0] ?? null;

/** Logos the home page names, best first: JSON-LD `logo` (or `image`), then apple-touch-icon, then icon links. */
function logoCandidates(page: ParsedPage): Found<string>[] {
  const found: Found<string>[] = [];
  for (const node of page.jsonLd.filter((n) => hasType(n, ...ORGANIZATION_TYPES, ...PRODUCT_TYPES, 'WebSite'))) {
    const logo = str(node.logo, 'url', 'contentUrl') ?? str(node.image, 'url', 'contentUrl');
    const url = absoluteUrl(logo, page.url);
    if (url) found.push({ value: url, evidence: ev(page, fragment(node.logo !== undefined ? 'logo' : 'image', node.logo ?? node.image)) });
  }
  const { $ } = page;
  const selectors = ['link[rel~="apple-touch-icon"]', 'link[rel~="apple-touch-icon-precomposed"]', 'link[rel~="icon"]'];
  for (const sel of selectors) {
    for (const el of $(sel).toArray()) {
      const url = absoluteUrl($(el).attr('href'), page.url);
      if (url) found.push({ value: url, evidence: ev(page, $.html(el) ?? url) });
    }
  }
  return dedupe(found);
}

/** Preview images of the home page, best first: Open Graph, then Twitter card images. */
function imageCandidates(page: ParsedPage): Found<string>[] {
  const found: Found<string>[] = [];
  for (const key of ['og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src']) {
    const meta = metaContent(page, key);
    const url = meta ? absoluteUrl(meta.value, page.url) : null;
    if (meta && url) found.push({ value: url, evidence: ev(page, meta.snippet) });
  }
  return dedupe(found);
}

const dedupe = (found: Found<string>[]) => found.filter((f, i) => found.findIndex((g) => g.value === f.value) === i);

/**
 * Every logo and preview image address the home page names, best first, with evidence: the
 * crawl fetches them in this order until one is a usable image (src/domain/media/crawled-media.ts).
 * Pure; never throws.
 */
export function mediaCandidates(result: CrawlResult): { logo_url: Found<string>[]; image_url: Found<string>[] } {
  const first = result?.pages?.[0];
  const home =
    first && typeof first.url === 'string' ? safe(() => parsePage(first.url, typeof first.html === 'string' ? first.html : '')) : null;
  if (!home) return { logo_url: [], image_url: [] };
  return { logo_url: safe(() => logoCandidates(home)) ?? [], image_url: safe(() => imageCandidates(home)) ?? [] };
}

function findCategories(home: ParsedPage, fields: DraftFields): Found<string[]> | null {
  const texts: { text: string; weight: number }[] = [];
  if (fields.name) texts.push({ text: fields.name, weight: 3 });
  if (fields.headline) texts.push({ text: fields.headline, weight: 3 });
  if (fields.summary) texts.push({ text: fields.summary, weight: 2 });
  home.$('h1, h2, h3').each((i, el) => {
    if (i < 30) texts.push({ text: clean(home.$(el).text()), weight: 1 });
  });
  const scores = scoreCategories(texts);
  if (!scores.length) return null;
  return { value: scores.map((s) => s.slug), evidence: ev(home, scores[0]!.text) };
}

const PREFERRED_LOCAL_PARTS = ['contact', 'hello', 'support', 'info', 'hi', 'team', 'help', 'sales'];

function findContactEmail(pages: ParsedPage[], siteUrl: string): Found<string> | null {
  let siteDomain = '';
  try {
    const host = new URL(siteUrl).hostname;
    siteDomain = registrableDomain(host) ?? host;
  } catch {
    // no domain
  }
  const candidates: { email: string; score: number; order: number; evidence: Evidence }[] = [];
  let order = 0;
  const consider = (raw: string, page: ParsedPage, snippetText: string, base: number) => {
    const email = raw.trim().toLowerCase();
    if (!isEmail(email)) return;
    const [local, domain] = email.split('@') as [string, string];
    let score = base;
    if (siteDomain && (registrableDomain(domain) ?? domain) === siteDomain) score += 4;
    const pref = PREFERRED_LOCAL_PARTS.indexOf(local);
    if (pref >= 0) score += 2 - pref / PREFERRED_LOCAL_PARTS.length;
    if (/^(no-?reply|donotreply|privacy|abuse|legal|gdpr|dpo)$/.test(local)) score -= 3;
    candidates.push({ email, score, order: order++, evidence: ev(page, snippetText) });
  };
  for (const page of pages) {
    const { $ } = page;
    $('a[href^="mailto:" i], a[href^="MAILTO:"]').each((_, el) => {
      const href = $(el).attr('href') ?? '';
      let address = href.slice('mailto:'.length).split('?')[0] ?? '';
      try {
        address = decodeURIComponent(address);
      } catch {
        // keep raw
      }
      for (const a of address.split(',')) consider(a, page, $.html(el) ?? href, 1);
    });
  }
  if (!candidates.length) {
    const contactPages = pages.filter((p) => {
      try {
        return /contact/i.test(new URL(p.url).pathname);
      } catch {
        return false;
      }
    });
    for (const page of contactPages) {
      for (const block of page.blocks) {
        for (const m of block.matchAll(EMAIL_RE)) consider(m[0], page, snippetAround(block, m.index ?? 0, m[0].length), 0);
      }
    }
  }
  candidates.sort((a, b) => b.score - a.score || a.order - b.order);
  const best = candidates[0];
  return best ? { value: best.email, evidence: best.evidence } : null;
}
