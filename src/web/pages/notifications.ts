import { listMyNotificationsOp } from '../../operations/updates.ts';
import { time } from '../components.ts';
import { pager, textBlocks } from '../content.ts';
import { html } from '../html.ts';
import { invokeForPage } from '../invoke.ts';
import { renderPage } from '../render.ts';
import { requireUser } from '../session.ts';
import type { PageRoutes } from './page-routes.ts';
import { pageNumber } from './updates.ts';

const PATH = '/account/notifications';
const PER_PAGE = 20;

/** The signed-in person's notifications, newest first (what list_my_notifications returns). */
export const notificationPages: PageRoutes = (router, services) => {
  router.get(PATH, requireUser(services), async function showNotifications(ctx) {
    const page = pageNumber(ctx.query.page);
    const list = await invokeForPage(ctx, services, listMyNotificationsOp, { page, per_page: PER_PAGE });
    await renderPage(ctx, services, {
      title: 'Notifications',
      main: html`${
        list.items.length > 0
          ? html`<ol class="feed">${list.items.map(
              (n) => html`<li><article aria-labelledby="notification-${n.id}" data-notification="${n.id}">
<h2 id="notification-${n.id}">${n.title}</h2>
<p class="muted"><a href="/listings/${n.listing.slug}">${n.listing.name}</a> · ${time(n.update?.published_at ?? n.created_at)}</p>
${textBlocks(n.body)}
</article></li>`,
            )}</ol>`
          : html`<p>No notifications${page > 1 ? ' on this page' : html` yet. Follow a listing from its page (see the <a href="/updates">latest updates</a>) and each update it posts shows here`}.</p>`
      }
${pager(PATH, page, PER_PAGE, list.total)}`,
    });
  });
};
