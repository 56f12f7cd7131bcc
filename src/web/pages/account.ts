import { listApiKeys } from '../../auth/api-keys.ts';
import { listMyListingsOp } from '../../operations/listings.ts';
import { paths } from '../../lib/paths.ts';
import { time } from '../components.ts';
import { html } from '../html.ts';
import { invokeForPage } from '../invoke.ts';
import { listingNextStep, ownerPaths } from '../next-steps.ts';
import { renderPage } from '../render.ts';
import { currentUser, requireUser } from '../session.ts';
import { accountControlSections } from './account-control.ts';
import { mailPreferencesSection } from './mail-preferences.ts';
import { accountNewsletterSection } from './newsletter.ts';
import type { PageRoutes } from './page-routes.ts';

/** Owners rarely have more; beyond this the overview says how many more there are. */
const LISTINGS_SHOWN = 50;

/** The account overview: the account's facts and a link to every page of the account area. */
export const accountPages: PageRoutes = (router, services) => {
  router.get('/account', requireUser(services), async function showAccount(ctx) {
    const user = (await currentUser(ctx, services))!;
    const [keys, listings, mail, newsletter, control] = await Promise.all([
      listApiKeys(services.db, user.id),
      invokeForPage(ctx, services, listMyListingsOp, { page: 1, per_page: LISTINGS_SHOWN }),
      mailPreferencesSection(ctx, services),
      accountNewsletterSection(ctx, services),
      accountControlSections(ctx, services),
    ]);
    await renderPage(ctx, services, {
      title: 'Your account',
      main: html`<dl>
<dt>Email address</dt><dd>${user.email}</dd>
<dt>Confirmed</dt><dd>${time(user.emailVerifiedAt, 'not yet')}</dd>
<dt>Member since</dt><dd>${time(user.createdAt)}</dd>
<dt>API keys</dt><dd>${keys.length} active · <a href="/account/keys">Manage API keys</a></dd>
</dl>
<nav aria-labelledby="account-pages">
<h2 id="account-pages">Your pages</h2>
<ul>
<li><a href="/account/listings">Your listings</a> — drafts and listings, their status and next step</li>
<li><a href="/account/notifications">Notifications</a> — updates of the listings you follow</li>
<li><a href="/account/orders">Orders</a> — what you bought, with invoices</li>
<li><a href="${paths.founderProfile}">Founder profile</a> — your name, photo, bio and interview</li>
<li><a href="/account/keys">API keys</a></li>
<li><a href="/account/webhooks">Webhooks</a> — events about your listings and orders sent to your own server</li>
<li><a href="/account/claims">Claims</a> — listings of your company you asked to own</li>
<li><a href="/account/sign-ins">Connected sign-ins</a> — sign in with GitHub or Google; link and unlink them</li>
<li><a href="/account/connected-apps">Connected apps</a> — AI agents and apps signed in with your account</li>
<li><a href="/updates">Latest updates</a> — what makers shipped lately</li>
</ul>
</nav>
${
  listings.total > 0 &&
  html`<section aria-labelledby="your-listings">
<h2 id="your-listings">Your listings</h2>
<ul class="owned">${listings.items.map(
    (l) =>
      html`<li><a href="${ownerPaths.home(l.id)}">${l.name}</a> — ${listingNextStep(l).state} · <a href="${paths.storyEditor(l.id)}">Edit the founder story<span class="visually-hidden"> of ${l.name}</span></a></li>`,
  )}</ul>
${listings.total > LISTINGS_SHOWN && html`<p class="muted">The newest ${LISTINGS_SHOWN} of your ${listings.total} listings.</p>`}
<p><a href="/account/listings">Drafts, statuses and next steps</a></p>
</section>`
}
${control}
${mail}
${newsletter}
<p>Forgot your password? <a href="/forgot-password">Reset it by mail</a> (other sessions are signed out).</p>`,
    });
  });
};
