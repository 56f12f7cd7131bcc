import type { CategoryCount } from '../operations/read-models/browse.ts';
import { displayName } from '../operations/read-models/display-names.ts';
import { html, type SafeHtml } from './html.ts';

/** Parts the browse pages share: logos, category names and links, listing cards. */

/** A category's name for people, from the one table of display names: `ai` is "AI". */
export function categoryName(slug: string): string {
  return displayName('category', slug);
}

export const categoryPath = (slug: string) => `/categories/${slug}`;

/**
 * The path of one of our /media files from what operations answer (an absolute URL on the API's
 * origin, or a site-relative path): pages show it from their own origin, whatever host the site
 * has. Anything else is null: the pages' CSP allows images of their own origin only.
 */
export function mediaPath(url: string | null | undefined): string | null {
  if (!url) return null;
  const parsed = URL.parse(url, 'http://relative.invalid');
  return parsed?.pathname.startsWith('/media/') ? parsed.pathname + parsed.search : null;
}

/**
 * A listing's logo: the image when it is one of ours (served from /media, which the pages'
 * CSP allows), else its initial on a coloured square. Both are named "Logo of {name}". The
 * small ones fill long lists and load lazily; the large one heads a listing's page, above the
 * fold, where lazy loading would only hold it back.
 */
export function listingLogo(l: { name: string; logo_url: string | null }, size: 48 | 96 = 48): SafeHtml {
  const label = `Logo of ${l.name}`;
  const src = mediaPath(l.logo_url);
  if (src)
    return html`<img class="logo logo-${size}" src="${src}" width="${size}" height="${size}" alt="${label}"${size === 48 ? html` loading="lazy"` : ''}>`;
  const initial = [...l.name.trim()][0]?.toUpperCase() ?? '?';
  return html`<span class="logo logo-${size} avatar avatar-${hue(l.name)}" role="img" aria-label="${label}">${initial}</span>`;
}

/** One of six colours, the same for a name every time. */
function hue(name: string): number {
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h % 6;
}

/** The categories as a list of links with their counts; empty categories are left out unless `all`. */
export function categoryLinks(categories: CategoryCount[], all = false): SafeHtml {
  const shown = all ? categories : categories.filter((c) => c.count > 0);
  return html`<ul class="categories">${shown.map(
    (c) =>
      html`<li><a href="${categoryPath(c.slug)}">${categoryName(c.slug)}</a> <span class="muted" data-count="${c.count}">${c.count} ${c.count === 1 ? 'listing' : 'listings'}</span></li>`,
  )}</ul>`;
}

/**
 * A listing in a list: logo, name (linked), a label such as "Featured", headline, and an aside
 * (the vote control). `attrs` replaces the default `data-listing="{slug}"`.
 */
/** A live listing's comment count, linking to its discussion (listings not live yet have none). */
function commentsLink(l: { slug: string; name: string; comment_count?: number }): SafeHtml | '' {
  if (l.comment_count === undefined) return '';
  const n = l.comment_count;
  return html`<a class="comments" href="/listings/${l.slug}#discussion" data-comment-count="${n}">${n} ${n === 1 ? 'comment' : 'comments'}<span class="visually-hidden"> on ${l.name}</span></a>`;
}

export function listingCard(
  l: { slug: string; name: string; headline: string | null; logo_url: string | null; comment_count?: number },
  o: { rank?: number; label?: string; aside?: SafeHtml; heading?: 'h2' | 'h3'; attrs?: SafeHtml } = {},
): SafeHtml {
  const name = html`<a href="/listings/${l.slug}">${l.name}</a>${o.label ? html` <span class="tag">${o.label}</span>` : ''}`;
  return html`<li class="card" ${o.attrs ?? html`data-listing="${l.slug}"`}>${o.rank !== undefined ? html`<span class="rank" data-rank>${o.rank}</span>` : ''}${listingLogo(l)}
<div class="card-body">${o.heading === 'h2' ? html`<h2>${name}</h2>` : html`<h3>${name}</h3>`}${l.headline ? html`<p>${l.headline}</p>` : ''}${commentsLink(l)}</div>${o.aside ? html`<div class="card-aside">${o.aside}</div>` : ''}</li>`;
}
