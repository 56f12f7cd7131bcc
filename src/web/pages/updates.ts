import { invalidField } from '../../errors/errors.ts';
import { listLatestUpdatesOp } from '../../operations/updates.ts';
import { time } from '../components.ts';
import { pager, textBlocks } from '../content.ts';
import { html } from '../html.ts';
import { invokeForPage, pageContext } from '../invoke.ts';
import { renderPage } from '../render.ts';
import type { PageRoutes } from './page-routes.ts';

const PER_PAGE = 20;
const MAX_PAGE = 100_000;

/** The latest-updates page of the site the request came to (what list_latest_updates returns). */
export const updatesPages: PageRoutes = (router, services) => {
  router.get('/updates', async function showUpdates(ctx) {
    const page = pageNumber(ctx.query.page);
    const { site } = await pageContext(ctx, services);
    const feed = await invokeForPage(ctx, services, listLatestUpdatesOp, { page, per_page: PER_PAGE });
    await renderPage(ctx, services, {
      title: 'Latest updates',
      meta: {
        description: `What the makers on ${site.name} shipped lately, newest first.`,
        share: { type: 'website' },
        alternates: [{ type: 'application/atom+xml', title: 'Latest updates (Atom)', href: '/feeds/updates.xml' }],
      },
      main: html`<p>What the makers on ${site.name} shipped lately, newest first.</p>
${
  feed.items.length === 0
    ? html`<p>No updates${page > 1 ? ' on this page' : ' yet'}.</p>`
    : html`<ol class="feed">${feed.items.map(
        (u) => html`<li><article aria-labelledby="update-${u.id}">
<h2 id="update-${u.id}">${u.title}</h2>
<p class="muted"><a href="/listings/${u.listing.slug}">${u.listing.name}</a> · ${time(u.published_at)}</p>
${textBlocks(u.body)}
</article></li>`,
      )}</ol>`
}
${pager('/updates', page, PER_PAGE, feed.total)}`,
    });
  });
};

/** `?page=` as a number; absent is 1, anything but a page number is a 400 page. */
export function pageNumber(value: unknown): number {
  if (value === undefined) return 1;
  if (typeof value === 'string' && /^[1-9]\d{0,5}$/.test(value) && Number(value) <= MAX_PAGE) return Number(value);
  throw invalidField('page', `Pages are numbered from 1 to ${MAX_PAGE}`, `Pages are numbered from 1 to ${MAX_PAGE}.`);
}
