import type { Context } from 'koa';
import { followListingOp, unfollowListingOp } from '../../operations/follows.ts';
import { isFollowing } from '../../operations/read-models/listings.ts';
import { postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage } from '../invoke.ts';
import { currentUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import { listingAction } from './listing-actions.ts';
import type { PageRoutes } from './page-routes.ts';
import { slot, slotData } from '../personal-slots.ts';

const followPath = (slug: string) => `/listings/${encodeURIComponent(slug)}/follow`;
const unfollowPath = (slug: string) => `/listings/${encodeURIComponent(slug)}/unfollow`;

/**
 * Following from the listing page: follow_listing and unfollow_listing as CSRF-checked form
 * posts (the router refuses a post without the token).
 */
export const followPages: PageRoutes = (router, services) => {
  // follow_listing answers 404 unless the listing is live.
  listingAction(
    router,
    services,
    'follow',
    (ctx, listing) => invokeForPage(ctx, services, followListingOp, { listing_id: listing.id }),
    (ctx, slug) => backToListing(ctx, slug, 'followed'),
  );
  listingAction(
    router,
    services,
    'unfollow',
    (ctx, listing) => invokeForPage(ctx, services, unfollowListingOp, { listing_id: listing.id }),
    (ctx, slug) => backToListing(ctx, slug, 'unfollowed'),
  );
};

function backToListing(ctx: Context, slug: string, notice: 'followed' | 'unfollowed') {
  ctx.status = 303;
  ctx.redirect(`/listings/${encodeURIComponent(slug)}?notice=${notice}`);
}

/**
 * The follow control of a listing page: Follow or Unfollow for the signed-in, a sign-in link that
 * comes back here for everyone else. `following`, when the caller has read it already.
 */
export async function followControl(
  ctx: Context,
  services: WebServices,
  listing: { id: number; slug: string; name: string },
  following?: boolean,
): Promise<SafeHtml> {
  const user = await currentUser(ctx, services);
  if (!user) {
    const back = encodeURIComponent(`/listings/${encodeURIComponent(listing.slug)}`);
    const invite = html`<p class="follow"><a href="/signin?return_to=${back}">Sign in to follow</a> and hear about each update of ${listing.name}.</p>`;
    return slot('follow', slotData({ id: listing.id, slug: listing.slug, name: listing.name }), invite);
  }
  const token = await csrfToken(ctx, services);
  const name = html`<span class="visually-hidden"> ${listing.name}</span>`;
  if (following ?? (await isFollowing(services, user.id, listing.id))) {
    return html`<div class="follow" data-following="true"><p>You follow this listing: each update shows in your <a href="/account/notifications">notifications</a>.</p>
${postForm(unfollowPath(listing.slug), token, html`<button type="submit" class="secondary">Unfollow${name}</button>`)}</div>`;
  }
  return html`<div class="follow" data-following="false">
${postForm(followPath(listing.slug), token, html`<button type="submit">Follow${name}</button>`)}
<p class="hint">Get a notification for each update it posts, and an email: at most one an hour, later updates in one digest.</p></div>`;
}
