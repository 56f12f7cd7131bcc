import type { Context } from 'koa';
import { todaysBillboard } from '../domain/orders/placements.ts';
import { siteForHost } from '../domain/sites/sites.ts';
import { html, type SafeHtml } from './html.ts';
import type { WebServices } from './web-services.ts';

/** The banner of today's billboard booking on this site, or nothing (never fails a page). */
export async function billboardBanner(ctx: Context, services: WebServices): Promise<SafeHtml | undefined> {
  try {
    const site = await siteForHost(services.db, services.caches.sites, ctx.host);
    const listing = await todaysBillboard(services.db, services.caches.billboard, site.id);
    if (!listing) return undefined;
    return html`<aside class="billboard" aria-label="Billboard" data-billboard="${listing.id}"><a href="/listings/${listing.slug}"><strong>${listing.name}</strong></a>${listing.headline ? html` — ${listing.headline}` : ''}</aside>`;
  } catch {
    return undefined;
  }
}
