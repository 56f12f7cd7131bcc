import { loadHtml } from '../crawl/cheerio.ts';
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { parseHttpUrl } from '../../lib/urls.ts';

/** Where a badge link must point: our origin and the listing's public page. */
export interface BadgeTarget {
  /** Our public origin, e.g. https://directory.example. */
  baseUrl: string;
  slug: string;
}

export interface BadgeDetection {
  present: boolean;
  /** `rel` tokens of the counted link (lower case), e.g. ["nofollow"]. */
  rel: string[];
  /** Owner-readable: what was found, or why nothing counted. */
  detail: string;
}

/**
 * Whether the HTML the owner's server sent holds a working badge: an `<a href>` that resolves
 * (against the page URL and any `<base href>`) to our exact host and `/listings/{slug}`, and that
 * is not inside a comment, `<template>`, `<script>`, a `hidden` element or one styled
 * `display:none` / `visibility:hidden`. Lookalike hosts (ours as a subdomain or in the path of
 * another host) and the address written as plain text do not count.
 */
export function detectBadge(html: string, pageUrl: string, target: BadgeTarget): BadgeDetection {
  const $ = loadHtml(html);
  const base = documentBase($, pageUrl);
  let hidden: string | null = null;
  for (const el of $('a[href]').toArray()) {
    const href = resolve($(el).attr('href')!, base);
    if (!href || !pointsAtListing(href, target)) continue;
    const why = whyInvisible(el);
    if (why) {
      hidden ??= why;
      continue;
    }
    const rel = ($(el).attr('rel') ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    return { present: true, rel, detail: `Found a link to ${href.href}${rel.length ? ` (rel="${rel.join(' ')}")` : ''}.` };
  }
  const listingUrl = `${target.baseUrl}/listings/${target.slug}`;
  if (hidden) return { present: false, rel: [], detail: `A link to ${listingUrl} was found, but ${hidden}, so visitors cannot see it.` };
  if (html.includes(`/listings/${target.slug}`)) {
    return {
      present: false,
      rel: [],
      detail: `The address of your listing appears on the page, but not as a visible link (<a href="${listingUrl}">).`,
    };
  }
  return { present: false, rel: [], detail: `No link to ${listingUrl} was found on the page.` };
}

/** Elements whose content nobody sees or clicks. */
const INERT_TAGS = new Set(['template', 'script', 'noscript', 'style', 'head', 'title', 'textarea']);

/**
 * Why a link cannot be seen, or null when it can. Walks the raw parent chain: the parser keeps
 * `<template>` content in a fragment whose parent is the template, which cheerio's traversal hides.
 */
function whyInvisible(link: Element): string | null {
  if (link.attribs['aria-hidden'] === 'true') return 'it is marked aria-hidden';
  for (let node: AnyNode | null = link; node; node = node.parent) {
    if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style') continue;
    const el = node as Element;
    if (INERT_TAGS.has(el.name)) return `it is inside a <${el.name}> element`;
    if (el.attribs.hidden !== undefined) return 'it is inside a hidden element';
    const style = (el.attribs.style ?? '').toLowerCase().replace(/\s+/g, '');
    if (/(?:^|;)display:none/.test(style)) return 'it is inside an element styled display:none';
    if (/(?:^|;)visibility:hidden/.test(style)) return 'it is inside an element styled visibility:hidden';
  }
  return null;
}

/** The URL relative links resolve against: the first `<base href>`, else the page's own URL. */
function documentBase($: CheerioAPI, pageUrl: string): URL {
  const page = new URL(pageUrl);
  const href = $('base[href]').first().attr('href');
  return (href && resolve(href, page)) || page;
}

function resolve(href: string, base: URL): URL | null {
  return parseHttpUrl(href.trim(), base);
}

/** Exactly our host (and port), the listing's path with at most a trailing slash, no credentials. */
export function pointsAtListing(url: URL, target: BadgeTarget): boolean {
  const ours = new URL(target.baseUrl);
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (host !== ours.hostname.toLowerCase() || url.port !== ours.port || url.username || url.password) return false;
  const path = url.pathname.replace(/\/$/, '');
  return path === `/listings/${target.slug}` || path === `/listings/${encodeURIComponent(target.slug)}`;
}
