import { load } from 'cheerio';

/**
 * The crawl keeps its evidence as the piece of the page it read: an HTML fragment (`<meta
 * name="description" content="…">`, `<a href="…">`), or a `"key": value` fragment of the page's
 * JSON-LD. People read the text the page showed, so the owner's forms show that instead.
 */

/** A JSON-LD fragment (`"name": "Acme"`), as the crawl writes it. */
const JSON_FRAGMENT = /^"([^"]{1,80})":\s*([\s\S]*)$/;

/** The words of a parsed JSON-LD value: strings as they are, lists and objects by their values. */
function jsonWords(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(jsonWords).filter(Boolean).join(', ');
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    // A thing named by its name (a question, an organisation) reads as its name.
    for (const key of ['name', 'text', 'url', '@id']) if (typeof o[key] === 'string') return o[key] as string;
    return Object.entries(o)
      .filter(([k]) => !k.startsWith('@'))
      .map(([, v]) => jsonWords(v))
      .filter(Boolean)
      .join(', ');
  }
  return '';
}

/** A cut-off JSON value (the crawl keeps at most 200 characters, ending in `…`): its strings, unquoted. */
const looseJsonWords = (json: string) =>
  [...json.matchAll(/"((?:[^"\\]|\\.)*)"?/g)]
    .map((m) => m[1]!.replace(/\\(.)/g, '$1'))
    .filter((s) => s && !s.startsWith('@') && !/^[a-z][A-Za-z]*$/.test(s))
    .join(', ') || json;

/** The visible words of an HTML fragment; for an element without text, what stands for it. */
function htmlWords(fragment: string): string {
  const $ = load(fragment, null, false);
  const text = $.root().text().replace(/\s+/g, ' ').trim();
  if (text) return text;
  const el = $('*').first();
  for (const name of ['content', 'alt', 'aria-label', 'title', 'href', 'src']) {
    const value = el.attr(name)?.trim();
    if (value) return value;
  }
  return '';
}

/** What the owner sees of a piece of evidence: the text of the page, not its markup. */
export function evidenceText(snippet: string): string {
  const s = snippet.trim();
  const json = JSON_FRAGMENT.exec(s);
  if (json) {
    const raw = json[2]!;
    try {
      return jsonWords(JSON.parse(raw)) || raw;
    } catch {
      return looseJsonWords(raw.replace(/…$/, ''));
    }
  }
  if (/<[a-z!/]/i.test(s)) return htmlWords(s) || s;
  return s;
}
