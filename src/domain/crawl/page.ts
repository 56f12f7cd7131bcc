import { loadHtml } from './cheerio.ts';
import type { CheerioAPI } from 'cheerio';
import type { AnyNode } from 'domhandler';
import { parseJsonLd } from './json-ld.ts';
import type { JsonLdNode } from './json-ld.ts';
import { clean } from './text.ts';

/** A crawled page, parsed once for all extractors. */
export interface ParsedPage {
  url: string;
  /** The document with <script>, <style>, <noscript> and <template> removed. */
  $: CheerioAPI;
  /** Every JSON-LD node of the page (@graph and arrays flattened). */
  jsonLd: JsonLdNode[];
  /** The visible text, one entry per block element (paragraph, heading, list item...). */
  blocks: string[];
}

const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'br',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'td',
  'th',
  'tr',
  'ul',
  'option',
  'button',
  'title',
  'head',
]);

export function parsePage(url: string, html: string): ParsedPage {
  let $: CheerioAPI;
  try {
    $ = loadHtml(typeof html === 'string' ? html : '');
  } catch {
    $ = loadHtml('');
  }
  const jsonLd: JsonLdNode[] = [];
  $('script[type]').each((_, el) => {
    const type = ($(el).attr('type') ?? '').toLowerCase().split(';')[0]!.trim();
    if (type === 'application/ld+json') jsonLd.push(...parseJsonLd($(el).text()));
  });
  $('script, style, noscript, template, svg, iframe, object').remove();
  return { url, $, jsonLd, blocks: textBlocks($) };
}

function textBlocks($: CheerioAPI): string[] {
  const blocks: string[] = [];
  let current = '';
  const flush = () => {
    const t = clean(current);
    if (t) blocks.push(t);
    current = '';
  };
  const walk = (node: AnyNode) => {
    if (node.type === 'text') {
      current += (node as unknown as { data: string }).data;
      return;
    }
    if (node.type !== 'tag') return;
    const el = node as unknown as { name: string; children: AnyNode[] };
    const block = BLOCK_TAGS.has(el.name);
    if (block) flush();
    for (const child of el.children) walk(child);
    if (block) flush();
  };
  const body = $('body').get(0);
  if (body) walk(body);
  flush();
  return blocks;
}

/** The content of the first matching <meta name|property=...>. */
export function metaContent(page: ParsedPage, ...keys: string[]): { value: string; snippet: string } | null {
  const { $ } = page;
  for (const key of keys) {
    const el = $('meta')
      .filter((_, m) => {
        const k = ($(m).attr('property') ?? $(m).attr('name') ?? $(m).attr('itemprop') ?? '').toLowerCase().trim();
        return k === key;
      })
      .filter((_, m) => clean($(m).attr('content')) !== '')
      .first();
    if (el.length) {
      const value = clean(el.attr('content'));
      return { value, snippet: `<meta ${el.attr('property') !== undefined ? 'property' : 'name'}="${key}" content="${value}">` };
    }
  }
  return null;
}
