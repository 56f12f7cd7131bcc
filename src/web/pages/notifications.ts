import type { Context } from 'koa';
import { markAllNotificationsReadOp, markNotificationsReadOp } from '../../operations/notifications.ts';
import { listMyNotificationsOp } from '../../operations/updates.ts';
import { postForm, time } from '../components.ts';
import { pager, textBlocks } from '../content.ts';
import { csrfToken } from '../csrf.ts';
import { formBody } from '../forms.ts';
import { html } from '../html.ts';
import { invokeForPage } from '../invoke.ts';
import { renderPage } from '../render.ts';
import { requireUser } from '../session.ts';
import type { PageRoutes } from './page-routes.ts';
import { pageNumber } from './updates.ts';

const PATH = '/account/notifications';
const READ = `${PATH}/read`;
const READ_ALL = `${PATH}/read-all`;
const PER_PAGE = 20;

type Notification = Awaited<ReturnType<typeof listMyNotificationsOp.handler>>['items'][number];

/** The signed-in person's notifications, newest first (what list_my_notifications returns), with read marks. */
export const notificationPages: PageRoutes = (router, services) => {
  router.get(PATH, requireUser(services), async function showNotifications(ctx) {
    const page = pageNumber(ctx.query.page);
    const list = await invokeForPage(ctx, services, listMyNotificationsOp, { page, per_page: PER_PAGE });
    const token = await csrfToken(ctx, services);
    const item = (
      n: Notification,
    ) => html`<li><article aria-labelledby="notification-${n.id}" data-notification="${n.id}" data-read="${String(n.read)}">
<h2 id="notification-${n.id}">${n.title}</h2>${n.read ? '' : html`<span class="badge">New</span>`}
<p class="muted"><a href="${n.comment?.url ?? `/listings/${n.listing.slug}`}">${n.listing.name}</a> · ${time(n.update?.published_at ?? n.created_at)}</p>
${textBlocks(n.body)}
${n.read ? '' : postForm(READ, token, html`<input type="hidden" name="id" value="${n.id}"><input type="hidden" name="page" value="${page}"><button type="submit" class="link">Mark read</button>`, 'inline')}
</article></li>`;
    await renderPage(ctx, services, {
      title: 'Notifications',
      main: html`${list.items.some((n) => !n.read) ? postForm(READ_ALL, token, html`<button type="submit">Mark all read</button>`) : ''}
${
  list.items.length > 0
    ? html`<ol class="feed">${list.items.map(item)}</ol>`
    : html`<p>No notifications${page > 1 ? ' on this page' : html` yet. Follow a listing from its page (see the <a href="/updates">latest updates</a>) and each update it posts shows here, with replies to your comments and comments on your listings`}.</p>`
}
${pager(PATH, page, PER_PAGE, list.total)}`,
    });
  });

  router.post(READ, requireUser(services), async function markOneRead(ctx) {
    const body = formBody(ctx);
    const ids = [body.id ?? []]
      .flat()
      .map(String)
      .filter((id) => /^[1-9]\d{0,9}$/.test(id))
      .slice(0, 100)
      .map(Number);
    if (ids.length > 0) await invokeForPage(ctx, services, markNotificationsReadOp, { ids });
    backToList(ctx, pageNumber(body.page));
  });

  router.post(READ_ALL, requireUser(services), async function markEveryRead(ctx) {
    await invokeForPage(ctx, services, markAllNotificationsReadOp, {});
    backToList(ctx, 1);
  });
};

function backToList(ctx: Context, page: number): void {
  ctx.status = 303;
  ctx.redirect(page > 1 ? `${PATH}?page=${page}` : PATH);
}
