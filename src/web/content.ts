import type { MissingItem } from '../domain/founders/publish-rules.ts';
import { paragraphs } from '../operations/read-models/founders.ts';
import { html, type SafeHtml } from './html.ts';
import { parseHttpUrl } from '../lib/urls.ts';

/** Rendering of what owners wrote (plain text, links) and of shared page parts. Everything is escaped. */

/** Plain text as paragraphs: blank lines separate them, a single line break stays a line break. */
export function textBlocks(text: string | null | undefined): SafeHtml {
  if (!text) return html``;
  return html`${paragraphs(text).map((p) => html`<p>${lines(p)}</p>`)}`;
}

/** One paragraph's lines joined by <br>. */
export const lines = (text: string): SafeHtml => html`${text.split('\n').map((line, i) => html`${i > 0 && html`<br>`}${line}`)}`;

/**
 * A link to a URL somebody else typed: only http(s) becomes a link (never javascript: or data:),
 * and it carries no referrer and no ranking credit. Anything else shows as text.
 */
export function externalLink(url: string, label: string = displayUrl(url), rel = 'nofollow ugc noopener'): SafeHtml {
  const parsed = parseHttpUrl(url);
  if (!parsed) return html`${label}`;
  return html`<a href="${parsed.href}" rel="${rel}">${label}</a>`;
}

/** A URL as people read it: without the scheme and a lone trailing slash. */
export const displayUrl = (url: string) => url.replace(/^https?:\/\//, '').replace(/\/$/, '');

/**
 * A founder photo of the media route (a same-origin path), or nothing. `name: null` makes it
 * decorative (empty alt), for a photo inside a link that already says the name.
 */
export function founderPhoto(path: string | null, name: string | null, size = 96): SafeHtml {
  if (!path) return html``;
  return html`<img class="founder-photo" src="${path}" width="${size}" height="${size}" alt="${name ? `Photo of ${name}` : ''}">`;
}

/** What keeps a profile or a story from being complete, each with the page that fixes it. */
export function missingList(missing: MissingItem[], heading: string): SafeHtml {
  if (missing.length === 0) return html``;
  return html`<section class="missing" aria-labelledby="missing-title">
<h2 id="missing-title">${heading}</h2>
<ul>${missing.map((m) => html`<li data-code="${m.code}">${m.reason} ${sameSiteLink(m.url, 'Fix this')}</li>`)}</ul>
</section>`;
}

/** Our own absolute URLs (from config.baseUrl) become site-relative links. */
function sameSiteLink(url: string, label: string): SafeHtml {
  const path = new URL(url, 'http://placeholder.invalid').pathname;
  return html`<a href="${path}">${label}</a>`;
}

/** Newer/older links of a page-numbered list (newest first). */
export function pager(path: string, page: number, perPage: number, total: number, query: Record<string, string> = {}): SafeHtml {
  const last = Math.max(1, Math.ceil(total / perPage));
  if (last === 1 && page === 1) return html``;
  const at = (n: number) => {
    const search = new URLSearchParams({ ...query, ...(n === 1 ? {} : { page: String(n) }) }).toString();
    return search ? `${path}?${search}` : path;
  };
  return html`<nav class="pager" aria-label="Pages">
${page > 1 && html`<a rel="prev" href="${at(Math.min(page - 1, last))}">← Newer</a>`}
<span>Page ${page} of ${last}</span>
${page < last && html`<a rel="next" href="${at(page + 1)}">Older →</a>`}
</nav>`;
}

/** A calendar date (YYYY-MM-DD) as a <time>. */
export const day = (date: string): SafeHtml => html`<time datetime="${date}">${date}</time>`;
