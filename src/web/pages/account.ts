import { listApiKeys } from '../../auth/api-keys.ts';
import { time } from '../components.ts';
import { html } from '../html.ts';
import { renderPage } from '../render.ts';
import { currentUser, requireUser } from '../session.ts';
import type { PageRoutes } from './page-routes.ts';

/** The account overview. */
export const accountPages: PageRoutes = (router, services) => {
  router.get('/account', requireUser(services), async function showAccount(ctx) {
    const user = (await currentUser(ctx, services))!;
    const keys = await listApiKeys(services.db, user.id);
    await renderPage(ctx, services, {
      title: 'Your account',
      main: html`<dl>
<dt>Email address</dt><dd>${user.email}</dd>
<dt>Confirmed</dt><dd>${time(user.emailVerifiedAt, 'not yet')}</dd>
<dt>Member since</dt><dd>${time(user.createdAt)}</dd>
<dt>API keys</dt><dd>${keys.length} active · <a href="/account/keys">Manage API keys</a></dd>
</dl>
<p><a href="/forgot-password">Change your password</a> (we mail you a link; other sessions are signed out).</p>`,
    });
  });
};
