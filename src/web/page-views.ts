import { isbot } from 'isbot';
import { LRUCache } from 'lru-cache';
import type { Context } from 'koa';
import type { WebServices } from './web-services.ts';

/**
 * Counts one view of a listing page by a person, for launch analytics: no cookie is read or set, bots
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
  const known = botAgents.get(agent);
  if (known !== undefined) return known;
  const bot = isbot(agent);
  if (agent.length <= 512) botAgents.set(agent, bot);
  return bot;
};

/**
 * isbot's answers by User-Agent: its pattern is long, and most views come from a few hundred
 * browser versions (a kept page's whole answer costs about as much as one match).
 */
const botAgents = new LRUCache<string, boolean>({ max: 2_000 });

/** The host of an http(s) referrer, lower case, without port or path; null for anything else. */
function referrerHost(referer: string): string | null {
  if (!referer) return null;
  const url = URL.parse(referer);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname) return null;
  return url.hostname.toLowerCase();
}
