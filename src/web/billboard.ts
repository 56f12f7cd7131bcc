import type { Context } from 'koa';
import { billboardToday } from '../operations/read-models/placements.ts';
import { html, type SafeHtml } from './html.ts';
import { pageContext } from './invoke.ts';
import type { WebServices } from './web-services.ts';

/** The banner of today's billboard booking on this site, or nothing (never fails a page). */
export async function billboardBanner(ctx: Context, services: WebServices): Promise<SafeHtml | undefined> {
  try {
    const listing = await billboardToday(await pageContext(ctx, services));
    if (!listing) return undefined;
    return html`<aside class="billboard" aria-label="Billboard" data-billboard="${listing.id}"><a href="/listings/${listing.slug}"><strong>${listing.name}</strong></a>${listing.headline ? html` — ${listing.headline}` : ''}</aside>`;
  } catch {
    return undefined;
  }
}
