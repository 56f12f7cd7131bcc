import type { Context } from 'koa';
import { followListing, isFollowing, unfollowListing } from '../../domain/updates/followers.ts';
import { notFound } from '../../errors.ts';
import { postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { html, type SafeHtml } from '../html.ts';
import { currentUser, requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';

const followPath = (slug: string) => `/listings/${encodeURIComponent(slug)}/follow`;
const unfollowPath = (slug: string) => `/listings/${encodeURIComponent(slug)}/unfollow`;

/**
 * Following from the listing page: the same domain functions as follow_listing and
 * unfollow_listing, as CSRF-checked form posts (the router refuses a post without the token).
 */
export const followPages: PageRoutes = (router, services) => {
  router.post('/listings/:slug/follow', requireUser(services), async function followFromPage(ctx) {
    const user = (await currentUser(ctx, services))!;
    const listing = await listingBySlug(ctx, services);
    await followListing(services.db, user.id, listing.id); // 404 unless live
    backToListing(ctx, listing.slug, 'followed');
  });

  router.post('/listings/:slug/unfollow', requireUser(services), async function unfollowFromPage(ctx) {
    const user = (await currentUser(ctx, services))!;
    const listing = await listingBySlug(ctx, services);
    await unfollowListing(services.db, user.id, listing.id);
    backToListing(ctx, listing.slug, 'unfollowed');
  });
};

/** The listing of the path's slug, any status (the domain functions decide what may happen to it). */
async function listingBySlug(ctx: Context, services: WebServices): Promise<{ id: number; slug: string }> {
  const row = await services
    .db('listings')
    .where({ slug: String(ctx.params.slug) })
    .first('id', 'slug');
  if (!row) throw notFound('The listing');
  return row;
}

function backToListing(ctx: Context, slug: string, notice: 'followed' | 'unfollowed') {
  ctx.status = 303;
  ctx.redirect(`/listings/${encodeURIComponent(slug)}?notice=${notice}`);
}

/**
 * The follow control of a listing page: Follow or Unfollow for the signed-in, a sign-in link that
 * comes back here for everyone else.
 */
export async function followControl(
  ctx: Context,
  services: WebServices,
  listing: { id: number; slug: string; name: string },
): Promise<SafeHtml> {
  const user = await currentUser(ctx, services);
  if (!user) {
    const back = encodeURIComponent(`/listings/${encodeURIComponent(listing.slug)}`);
    return html`<p class="follow"><a href="/signin?return_to=${back}">Sign in to follow</a> and hear about each update of ${listing.name}.</p>`;
  }
  const token = await csrfToken(ctx, services);
  const name = html`<span class="visually-hidden"> ${listing.name}</span>`;
  if (await isFollowing(services.db, user.id, listing.id)) {
    return html`<div class="follow" data-following="true"><p>You follow this listing: each update shows in your <a href="/account/notifications">notifications</a>.</p>
${postForm(unfollowPath(listing.slug), token, html`<button type="submit" class="secondary">Unfollow${name}</button>`)}</div>`;
  }
  return html`<div class="follow" data-following="false">
${postForm(followPath(listing.slug), token, html`<button type="submit">Follow${name}</button>`)}
<p class="hint">Get a notification for each update it posts, and an email: at most one an hour, later updates in one digest.</p></div>`;
}
