import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { Config } from '../config/config.ts';
import { SESSION_COOKIE } from './session.ts';

/**
 * What a CDN or caching proxy may do with the pages: a public page as every visitor without a
 * session gets it (src/web/page-cache.ts) is `public` with the validators below, everything else a
 * page answers (signed in, forms with a CSRF token, notices, POST answers, /account, /staff,
 * checkout) `private, no-store` (src/web/security-headers.ts). See docs/operations.md, "Behind a
 * CDN or a caching proxy", and docs/decisions/public-page-caching.md.
 */

/** The Cache-Control of any page that is not the same for every visitor: never kept by any cache. */
export const PRIVATE_PAGE = 'private, no-store';

/**
 * Shared caches keep a visitor's page `sMaxAgeSeconds` and may send it aged for `staleSeconds`
 * more while they fetch the next; browsers ask again every time (`max-age=0`), which the ETag
 * makes a 304 when the page has not changed.
 */
export function publicCacheControl(settings: Config['publicPages']): string {
  const stale = settings.staleSeconds > 0 ? `, stale-while-revalidate=${settings.staleSeconds}` : '';
  return `public, max-age=0, s-maxage=${settings.sMaxAgeSeconds}${stale}`;
}

/**
 * The caching headers of a visitor's page whose body is `plain`, rendered at `renderedAt`. The
 * ETag is weak: the same page is sent plain, gzip and brotli, and one validator names all three.
 * Last-Modified is when the copy was rendered (its counts are as of then).
 */
export function visitorPageHeaders(plain: Buffer, renderedAt: Date, cacheControl: string): Record<string, string> {
  const hash = createHash('sha256').update(plain).digest('base64url').slice(0, 27);
  return { 'cache-control': cacheControl, etag: `W/"${hash}"`, 'last-modified': renderedAt.toUTCString() };
}

/** The cache-control a page's render set, unless it is the default: a page that set its own public one (the sitemap) keeps it. */
export const ownPublicCacheControl = (value: string | undefined) => (value?.startsWith('public') ? value : undefined);

/** A session cookie was sent (valid or not): the answer is never one for shared caches. */
export const sentSessionCookie = (ctx: Context) => ctx.get('cookie').includes(`${SESSION_COOKIE}=`);

/**
 * Whether the request's validators match the page's (RFC 9110 13.1): If-None-Match by weak
 * comparison; If-Modified-Since only when no If-None-Match was sent.
 */
export function notModified(ctx: Context, headers: Record<string, string>): boolean {
  const noneMatch = ctx.get('if-none-match');
  if (noneMatch) {
    const etag = weak(headers.etag ?? '');
    return noneMatch.trim() === '*' || noneMatch.split(',').some((tag) => weak(tag.trim()) === etag);
  }
  const since = ctx.get('if-modified-since');
  if (!since || !headers['last-modified']) return false;
  const time = Date.parse(since);
  return !Number.isNaN(time) && Date.parse(headers['last-modified']) <= time;
}

const weak = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
