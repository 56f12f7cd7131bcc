import { html } from '../html.ts';
import { renderPage } from '../render.ts';
import { currentUser } from '../session.ts';
import type { PageRoutes } from './page-routes.ts';

/** The front page: where to go next. */
export const homePages: PageRoutes = (router, services) => {
  router.get('/', async function showHome(ctx) {
    const user = await currentUser(ctx, services);
    await renderPage(ctx, services, {
      title: 'Listing Directory',
      main: html`<p>A ranked weekly directory of companies and products. Owners manage their listings through the
<a href="/api/v1/openapi.json">REST API</a> and MCP, with API keys from their account.</p>
${user ? html`<p><a href="/account">Your account</a> · <a href="/account/keys">API keys</a></p>` : html`<p><a href="/signup">Create an account</a> or <a href="/signin">sign in</a>.</p>`}`,
    });
  });
};
