import { listConnectedApps, revokeGrant } from '../../auth/oauth/grants.ts';
import { notFound } from '../../errors/errors.ts';
import { postForm, time } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { html } from '../html.ts';
import { renderPage } from '../render.ts';
import { currentUser, requireUser } from '../session.ts';
import type { PageRoutes } from './page-routes.ts';

/** Applications signed in through OAuth (MCP clients): who, which scopes, since when; revoke. */
export const connectedAppPages: PageRoutes = (router, services) => {
  router.get('/account/connected-apps', requireUser(services), async function showConnectedApps(ctx) {
    const user = (await currentUser(ctx, services))!;
    const apps = await listConnectedApps(services.db, user.id);
    const token = await csrfToken(ctx, services);
    const notice = ctx.query.notice === 'app-revoked' ? 'The application is disconnected. Its tokens stop working now.' : undefined;
    await renderPage(ctx, services, {
      title: 'Connected apps',
      notice,
      main: apps.length
        ? html`<table class="stack"><thead><tr><th scope="col">Application</th><th scope="col">Scopes</th><th scope="col">Allowed</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${apps.map(
            (
              app,
            ) => html`<tr><td data-label="Application">${app.clientName}</td><td data-label="Scopes">${app.scopes.length ? app.scopes.join(', ') : html`<span class="muted">identity only</span>`}</td><td data-label="Allowed">${time(app.grantedAt)}</td>
<td>${postForm(`/account/connected-apps/${encodeURIComponent(app.grantId)}/revoke`, token, html`<button type="submit" class="secondary">Disconnect</button>`)}</td></tr>`,
          )}</tbody></table>`
        : html`<p>No application is connected. When an AI agent or another app signs in with your account, it shows here.</p>`,
    });
  });

  router.post('/account/connected-apps/{grantId}/revoke', requireUser(services), async function disconnectApp(ctx) {
    const user = (await currentUser(ctx, services))!;
    // Another person's grant and an unknown one look the same.
    if (!(await revokeGrant(services.db, user.id, String(ctx.params.grantId)))) throw notFound('The connected app');
    ctx.status = 303;
    ctx.redirect('/account/connected-apps?notice=app-revoked');
  });
};
