import { isbot } from 'isbot';
import type { Context } from 'koa';
import type { WebServices } from './web-services.ts';

/**
 * Counts one view of a listing page by a person (issue 25 §2): no cookie is read or set, bots
 * (by User-Agent, with isbot) are not counted, and of the referrer only its host is kept. The
 * count goes to the process's buffer; nothing waits for the database.
 */
export function countListingView(ctx: Context, services: Pick<WebServices, 'pageCounters'>, slug: string): void {
  if (isBotRequest(ctx)) return;
  services.pageCounters.view(slug, referrerHost(ctx.get('referer')));
}

/** Counts one click through /go/{slug}, unless a bot follows the link. */
export function countListingClick(ctx: Context, services: Pick<WebServices, 'pageCounters'>, slug: string): void {
  if (!isBotRequest(ctx)) services.pageCounters.click(slug);
}

/**
 * Not a person looking: a bot, a script (no User-Agent), a HEAD request, or a browser fetching the
 * page ahead in case it is opened (prefetch, prerender).
 */
const isBotRequest = (ctx: Context) => {
  const agent = ctx.get('user-agent');
  if (agent === '' || ctx.method !== 'GET' || /prefetch|prerender/i.test(`${ctx.get('sec-purpose')} ${ctx.get('purpose')}`)) return true;
  return isbot(agent);
};

/** The host of an http(s) referrer, lower case, without port or path; null for anything else. */
function referrerHost(referer: string): string | null {
  if (!referer) return null;
  const url = URL.parse(referer);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname) return null;
  return url.hostname.toLowerCase();
}
