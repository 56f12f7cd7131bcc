import { asArray, fragment, hasType, ORGANIZATION_TYPES, str } from './json-ld.ts';
import type { JsonLdNode } from './json-ld.ts';
import type { ParsedPage } from './page.ts';
import { clean, isEmail, snippetAround } from './text.ts';
import type { CompanyFacts, Evidence } from './types.ts';

export interface FactsResult {
  facts: CompanyFacts;
  /** Keyed by fact name (without the `facts.` prefix). */
  evidence: Record<string, Evidence>;
}

type FactKey = keyof CompanyFacts;

/** Company facts from JSON-LD (first) and from visible text of the pages (about pages first). */
export function extractFacts(pages: ParsedPage[]): FactsResult {
  const facts: CompanyFacts = {};
  const evidence: Record<string, Evidence> = {};
  const set = <K extends FactKey>(key: K, value: CompanyFacts[K] | null | undefined, ev: Evidence) => {
    if (value === null || value === undefined || facts[key] !== undefined) return;
    if (Array.isArray(value) && value.length === 0) return;
    facts[key] = value;
    evidence[key] = ev;
  };

  for (const page of pages) {
    for (const node of page.jsonLd.filter((n) => hasType(n, ...ORGANIZATION_TYPES))) factsFromJsonLd(node, page.url, set);
  }
  const ordered = [...pages].sort((a, b) => aboutRank(a.url) - aboutRank(b.url));
  for (const page of ordered) factsFromText(page, set);
  return { facts, evidence };
}

type Setter = <K extends FactKey>(key: K, value: CompanyFacts[K] | null | undefined, ev: Evidence) => void;

function aboutRank(url: string): number {
  const parsed = URL.parse(url);
  if (!parsed) return 3;
  const path = parsed.pathname.toLowerCase();
  if (/about|company|story|who-we-are|team/.test(path)) return 0;
  if (path === '/' || path === '') return 1;
  return 2;
}

function factsFromJsonLd(node: JsonLdNode, url: string, set: Setter): void {
  const ev = (key: string) => ({ source_url: url, snippet: fragment(key, node[key]) });
  const legal = str(node.legalName);
  if (legal) set('legal_name', clean(legal), ev('legalName'));
  const founding = str(node.foundingDate);
  const year = founding ? /\b(1[89]\d{2}|20\d{2})\b/.exec(founding)?.[1] : undefined;
  if (year && plausibleYear(Number(year))) set('founded_year', Number(year), ev('foundingDate'));
  for (const key of ['founders', 'founder']) {
    const names = asArray(node[key])
      .map((f) => clean(str(f, 'name')))
      .filter((n) => n.length > 1 && n.length <= 80);
    if (names.length) {
      set('founders', [...new Set(names)], ev(key));
      break;
    }
  }
  const location = locationOf(node.address) ?? locationOf(node.location);
  if (location) set('location', location, ev(node.address !== undefined ? 'address' : 'location'));
  const employees = employeesOf(node.numberOfEmployees);
  if (employees) set('employees', employees, ev('numberOfEmployees'));
  const email = str(node.email)
    ?.replace(/^mailto:/i, '')
    .trim();
  if (email && isEmail(email)) set('email', email, ev('email'));
  const phone = str(node.telephone)?.trim();
  if (phone && /\d{3}/.test(phone) && phone.length <= 40) set('phone', phone, ev('telephone'));
}

function locationOf(value: unknown): string | null {
  for (const v of asArray(value)) {
    if (typeof v === 'string') {
      const s = clean(v);
      if (s && s.length <= 120) return s;
      continue;
    }
    if (!v || typeof v !== 'object') continue;
    const o = v as JsonLdNode;
    if (o.address !== undefined) {
      const inner = locationOf(o.address);
      if (inner) return inner;
    }
    const city = clean(str(o.addressLocality));
    const region = clean(str(o.addressRegion));
    const country = clean(str(o.addressCountry, 'name'));
    const parts = [city || region, country].filter(Boolean);
    if (parts.length) return parts.join(', ');
  }
  return null;
}

function employeesOf(value: unknown): string | null {
  if (typeof value === 'number' && value > 0) return String(value);
  if (typeof value === 'string' && /\d/.test(value)) return clean(value);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as JsonLdNode;
    if (o.value !== undefined) return employeesOf(o.value);
    const min = o.minValue;
    const max = o.maxValue;
    if (min !== undefined && max !== undefined) return `${min}-${max}`;
    if (min !== undefined) return `${min}+`;
  }
  return null;
}

function plausibleYear(y: number): boolean {
  return y >= 1800 && y <= new Date().getFullYear();
}

const NAME = String.raw`[A-Z][\p{Ll}'’\-]+(?: (?:[A-Z]\.|[A-Z][\p{Ll}'’\-]+|van|von|de|da|del|der|di|le|la)){1,3}`;
const NAME_LIST = String.raw`${NAME}(?:, ${NAME}){0,3}(?:,? (?:and|&) ${NAME})?`;
const PLACE_WORD = String.raw`[A-Z][\p{L}'’.\-]*`;
const PLACE = String.raw`${PLACE_WORD}(?: ${PLACE_WORD}){0,3}`;
const LEGAL_SUFFIX = String.raw`(?:Inc\.?|Incorporated|Ltd\.?|Limited|LLC|L\.L\.C\.|LLP|PLC|plc|GmbH|gGmbH|AG|UG|KG|SE|S\.A\.S\.|SAS|SARL|S\.A\.|SA|S\.L\.|SL|S\.r\.l\.|Srl|B\.V\.|BV|N\.V\.|NV|Oy|AB|ApS|A/S|AS|Pty\.? Ltd\.?|Pte\.? Ltd\.?|Corp\.?|Corporation|Co\.,? Ltd\.?|K\.K\.)`;

const FOUNDED_YEAR = new RegExp(
  String.raw`\b(?:[Ff]ounded|[Ee]stablished|[Ss]tarted|[Ll]aunched|[Ii]ncorporated)\b(?: (?!in\b)[\p{L}\d'’,&-]+){0,6}? in ((?:18|19|20)\d{2})\b`,
  'u',
);
const FOUNDERS = new RegExp(
  String.raw`\b(?:[Cc]o-?founded|[Ff]ounded|[Ss]tarted|[Cc]reated)\b(?: in (?:18|19|20)\d{2})? by (${NAME_LIST})`,
  'u',
);
const LOCATION = new RegExp(
  String.raw`\b(?:[Hh]eadquartered|HQ'd|[Bb]ased|[Hh]eadquarters are|[Hh]eadquarters is) in (${PLACE}(?:, ${PLACE}){0,2})`,
  'u',
);
const EMPLOYEES = [
  /\b[Tt]eam of ((?:over |more than |about |around |nearly |almost )?\d{1,3}(?:,\d{3})*\+?)(?! ?%)\b/,
  /\b((?:over |more than |about |around |nearly |almost )?\d{1,3}(?:,\d{3})*\+?) (?:full-time )?(?:employees|team members|staff members|people work)\b/,
];
const LEGAL_NAME = new RegExp(
  String.raw`(?:©|\(c\)|\(C\)|[Cc]opyright)(?: ?©)? ?(?:(?:18|19|20)\d{2}(?: ?[-–] ?(?:(?:18|19|20)\d{2}|present))?,? )?((?:[A-Z\d][\p{L}\d&'’.\-]*)(?: [A-Z\d&][\p{L}\d&'’.\-]*){0,4},? ${LEGAL_SUFFIX})(?![\p{L}])`,
  'u',
);

function factsFromText(page: ParsedPage, set: Setter): void {
  const text = page.blocks.join('\n');
  const ev = (m: RegExpExecArray) => ({ source_url: page.url, snippet: snippetAround(blockOf(text, m.index), 0, 0) });
  const blockOf = (all: string, index: number) => {
    const start = all.lastIndexOf('\n', index) + 1;
    const end = all.indexOf('\n', index);
    const block = all.slice(start, end < 0 ? undefined : end);
    const rel = index - start;
    return block.length <= 200 ? block : snippetAround(block, rel, 40);
  };

  let m = FOUNDED_YEAR.exec(text);
  if (m && plausibleYear(Number(m[1]))) set('founded_year', Number(m[1]), ev(m));

  m = FOUNDERS.exec(text);
  if (m) {
    const names = m[1]!
      .split(/, and |, | and | & /)
      .map((n) => n.trim())
      .filter((n) => n.split(' ').length >= 2);
    if (names.length) set('founders', names, ev(m));
  }

  m = LOCATION.exec(text);
  if (m) {
    const place = m[1]!.replace(/[.,]+$/, '').trim();
    if (place.length <= 80 && !/^(The|Our|We|A|An)\b/.test(place)) set('location', place, ev(m));
  }

  for (const re of EMPLOYEES) {
    m = re.exec(text);
    if (m) {
      set('employees', m[1]!.trim(), ev(m));
      break;
    }
  }

  m = LEGAL_NAME.exec(text);
  if (m) set('legal_name', normalizeLegalName(m[1]!), ev(m));

  const tel = page.$('a[href^="tel:"]').first();
  if (tel.length) {
    const phone = decodeURIComponentSafe((tel.attr('href') ?? '').slice(4)).trim();
    if (/^\+?[\d\s().-]{6,30}$/.test(phone)) {
      set('phone', phone, { source_url: page.url, snippet: snippetAround(clean(page.$.html(tel)), 0, 0) });
    }
  }
}

function normalizeLegalName(s: string): string {
  const name = clean(s);
  // Keep the dot of abbreviations (Inc., Ltd., Corp., Co.), drop a sentence full stop otherwise.
  if (/(?:Inc|Ltd|Corp|Co|S\.A|S\.L|B\.V|N\.V|K\.K|L\.L\.C|S\.r\.l|S\.A\.S)\.$/.test(name)) return name;
  return name.replace(/\.$/, '');
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
