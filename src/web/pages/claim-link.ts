import type { Context } from 'koa';
import type { LinkOutcome } from '../../domain/claims/open-link.ts';
import { openClaimLinkAs } from '../../operations/claim-links.ts';
import { paths } from '../../lib/paths.ts';
import { html, type SafeHtml } from '../html.ts';
import { pageContext } from '../invoke.ts';
import { renderPage } from '../render.ts';
import { currentUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';
import { slot, slotData } from '../personal-slots.ts';

/**
 * The page behind the link of an email claim. Only the claimant's own session uses the link up
 * and verifies; anyone else (a mail scanner, another account) changes nothing.
 */
export const claimLinkPages: PageRoutes = (router, services) => {
  router.get(paths.claimLink, async function openLink(ctx) {
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    const user = await currentUser(ctx, services);
    const result = await openClaimLinkAs(await pageContext(ctx, services), token);
    if (result.kind === 'sign_in') {
      ctx.status = 303;
      return ctx.redirect(`/signin?return_to=${encodeURIComponent(ctx.originalUrl)}`);
    }
    const page = linkPage(result, user?.email ?? '');
    await renderPage(ctx, services, { title: page.title, status: page.status, main: page.main });
  });
};

function linkPage(r: LinkOutcome, email: string): { title: string; status: number; main: SafeHtml } {
  if (r.kind === 'invalid') {
    return {
      title: 'This link does not work',
      status: 400,
      main: html`<p>The link is incomplete or was never ours. Copy the whole link from the mail.</p>`,
    };
  }
  const listing = html`<a href="/listings/${r.slug}">${r.listingName}</a>`;
  switch (r.kind) {
    case 'verified':
      return {
        title: 'Claim verified',
        status: 200,
        main: html`<p data-outcome="verified">You own ${listing} now. Edit it from <a href="/account">your account</a>.</p>`,
      };
    case 'used':
      return {
        title: 'This link was used already',
        status: 410,
        main: html`<p data-outcome="used">The link verified claim ${r.claimId} of ${listing} already; each link works once. See <a href="/account/claims">your claims</a>.</p>`,
      };
    case 'canceled':
      return {
        title: 'This claim was canceled',
        status: 410,
        main: html`<p data-outcome="canceled">Another account verified its claim of ${listing} first, so claim ${r.claimId} was canceled.</p>`,
      };
    case 'expired':
      return {
        title: 'This link has expired',
        status: 410,
        main: html`<p data-outcome="expired">Claim ${r.claimId} of ${listing} can no longer be verified with it. Start a new claim from the listing’s page.</p>`,
      };
    case 'wrong_account':
    case 'sign_in':
      return {
        title: 'Sign in as the claimant first',
        status: 403,
        main: html`<p data-outcome="wrong_account">You are signed in as ${email}, but claim ${r.claimId} of ${listing} was made by another account. Sign out, sign in with the account that made the claim, and open the link again. Nothing changed.</p>`,
      };
  }
}

/** "Is this your company? Claim it" on the page of a listing without an owner, for signed-in people. */
export async function claimPrompt(
  ctx: Context,
  services: WebServices,
  listing: { slug: string; owner_id: number | null },
): Promise<SafeHtml> {
  if (!(await currentUser(ctx, services))) return slot('claim', listing.owner_id === null ? slotData({ slug: listing.slug }) : '');
  if (listing.owner_id !== null) return html``;
  return html`<p class="claim">Is this your company? <a href="${paths.newClaim(listing.slug)}">Claim it</a></p>`;
}
