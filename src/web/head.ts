import type { Site } from '../domain/sites/sites.ts';
import { html, raw, type SafeHtml } from './html.ts';
import { DEFAULT_SHARE_IMAGE } from './share-image.ts';

/**
 * The <head> of a page: title, description, canonical address, favicon, feeds, link-preview tags
 * (Open Graph, Twitter card) and JSON-LD. Pages describe themselves with PageMeta; renderPage
 * fills in what is the site's.
 */

/** A feed or calendar of the page (`<link rel="alternate">`). */
export interface Alternate {
  type: 'application/atom+xml' | 'application/feed+json' | 'text/calendar';
  title: string;
  href: string;
}

/** What a page says about itself beyond its title. */
export interface PageMeta {
  /** The meta description; the site's description when absent. */
  description?: string;
  /** Site-relative canonical path with its meaningful query; the request path when absent. */
  canonical?: string;
  /** Open Graph and Twitter card tags, for pages worth sharing. */
  share?: { type: 'website' | 'article' | 'profile'; image?: string };
  /** JSON-LD documents (schema.org), each in its own script element. */
  jsonLd?: object[];
  /** Feeds beside the site-wide launch feeds. */
  alternates?: Alternate[];
}

/** The head as layout() writes it. */
export interface HeadTags {
  title: string;
  description: string;
  canonical: string;
  siteName: string;
  share?: { type: string; image: string };
  jsonLd: object[];
  alternates: Alternate[];
}

/** Feeds every page links. */
const SITE_FEEDS: Alternate[] = [
  { type: 'application/atom+xml', title: 'New launches (Atom)', href: '/feeds/launches.xml' },
  { type: 'application/feed+json', title: 'New launches (JSON Feed)', href: '/feeds/launches.json' },
];

/** The public origin of a site: the base URL, on the site's own host when it has one. */
export function siteOrigin(site: Pick<Site, 'host'>, baseUrl: string): string {
  const base = new URL(baseUrl);
  if (site.host) base.hostname = site.host;
  return base.origin;
}

/** The document title: the page's title and the site's name, never the site's name twice. */
export function documentTitle(title: string, siteName: string): string {
  return !title || title === siteName ? siteName : `${title} · ${siteName}`;
}

export const siteDescription = (siteName: string) =>
  `${siteName} is a ranked, weekly directory of companies and products: browse this week’s launches, vote for the ones you like, and launch your own.`;

/** Fills in the site's parts of a page's meta. */
export function headTags(o: { title: string; path: string; site: Pick<Site, 'name' | 'host'>; baseUrl: string; meta: PageMeta }): HeadTags {
  const origin = siteOrigin(o.site, o.baseUrl);
  const absolute = (url: string) => (url.startsWith('/') ? origin + url : url);
  const { meta } = o;
  return {
    title: documentTitle(o.title, o.site.name),
    description: oneLine(meta.description) || siteDescription(o.site.name),
    canonical: absolute(meta.canonical ?? o.path),
    siteName: o.site.name,
    share: meta.share && { type: meta.share.type, image: absolute(meta.share.image ?? DEFAULT_SHARE_IMAGE) },
    jsonLd: meta.jsonLd ?? [],
    alternates: [...SITE_FEEDS, ...(meta.alternates ?? [])],
  };
}

/** Descriptions are one line of at most 300 characters. */
function oneLine(text: string | undefined): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 297).replace(/\s+\S*$/, '')}…` : flat;
}

/** The tags of the head after <title>. */
export function headMarkup(h: HeadTags): SafeHtml {
  const shareTitle = h.title;
  return html`<meta name="description" content="${h.description}">
<link rel="canonical" href="${h.canonical}">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="icon" href="/favicon.png" sizes="32x32" type="image/png">
<link rel="apple-touch-icon" href="/apple-touch-icon.png">
${h.alternates.map((a) => html`<link rel="alternate" type="${a.type}" title="${a.title}" href="${a.href}">\n`)}${
    h.share &&
    html`<meta property="og:title" content="${shareTitle}">
<meta property="og:description" content="${h.description}">
<meta property="og:image" content="${h.share.image}">
<meta property="og:url" content="${h.canonical}">
<meta property="og:type" content="${h.share.type}">
<meta property="og:site_name" content="${h.siteName}">
<meta name="twitter:card" content="summary_large_image">
<meta name="twitter:title" content="${shareTitle}">
<meta name="twitter:description" content="${h.description}">
<meta name="twitter:image" content="${h.share.image}">
`
  }${h.jsonLd.map((doc) => html`<script type="application/ld+json">${raw(jsonForScript(doc))}</script>\n`)}`;
}

/** JSON inside <script>: `<`, `>` and `&` escaped as \u sequences, so no text can close the element. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
