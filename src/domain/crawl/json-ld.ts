/** A JSON-LD object node. */
export type JsonLdNode = Record<string, unknown>;

/** Parses one <script type="application/ld+json"> body; broken JSON gives no nodes. */
export function parseJsonLd(text: string): JsonLdNode[] {
  const source = text
    .trim()
    .replace(/^<!--/, '')
    .replace(/-->$/, '')
    .replace(/^\/\*<!\[CDATA\[\*\//, '')
    .replace(/\/\*\]\]>\*\/$/, '')
    .trim();
  if (!source) return [];
  let data: unknown;
  try {
    data = JSON.parse(source);
  } catch {
    try {
      // Common authoring slips: trailing commas and raw newlines in strings.
      data = JSON.parse(source.replace(/,\s*([}\]])/g, '$1').replace(/[\r\n\t]+/g, ' '));
    } catch {
      return [];
    }
  }
  const out: JsonLdNode[] = [];
  collect(data, out, 0);
  return out;
}

function collect(value: unknown, out: JsonLdNode[], depth: number): void {
  if (depth > 4 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) collect(v, out, depth + 1);
    return;
  }
  const node = value as JsonLdNode;
  if (node['@graph'] !== undefined) collect(node['@graph'], out, depth + 1);
  if (node['@type'] !== undefined) out.push(node);
}

/** The node's types without a schema.org prefix. */
export function typesOf(node: JsonLdNode): string[] {
  const t = node['@type'];
  const list = Array.isArray(t) ? t : [t];
  return list.filter((x): x is string => typeof x === 'string').map((x) => x.replace(/^https?:\/\/schema\.org\//, ''));
}

export function hasType(node: unknown, ...types: string[]): boolean {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return false;
  return typesOf(node as JsonLdNode).some((t) => types.includes(t));
}

/** A string property (the first string, or an object's name/@value/url). */
export function str(value: unknown, ...keys: string[]): string | null {
  if (typeof value === 'string') return value.trim() || null;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) {
    for (const v of value) {
      const s = str(v, ...keys);
      if (s) return s;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    const o = value as JsonLdNode;
    for (const k of keys.length ? keys : ['name', '@value']) {
      if (typeof o[k] === 'string' && (o[k] as string).trim()) return (o[k] as string).trim();
    }
  }
  return null;
}

export function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** A short JSON fragment of `key: value` for evidence. */
export function fragment(key: string, value: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch {
    json = String(value);
  }
  const s = `"${key}": ${json}`;
  return s.length > 200 ? `${s.slice(0, 199)}…` : s;
}

export const ORGANIZATION_TYPES = [
  'Organization',
  'Corporation',
  'OnlineBusiness',
  'OnlineStore',
  'LocalBusiness',
  'NGO',
  'EducationalOrganization',
  'NewsMediaOrganization',
  'ProfessionalService',
  'Store',
];
export const PRODUCT_TYPES = ['SoftwareApplication', 'WebApplication', 'MobileApplication', 'Product', 'Service'];
