import type { Context } from 'koa';
import { notFound } from '../../errors/errors.ts';
import { getMyListingOp } from '../../operations/listings.ts';
import { parseId } from '../../operations/schemas.ts';
import { paths } from '../../lib/paths.ts';
import { missingList } from '../content.ts';
import { html } from '../html.ts';
import { invokeForPage } from '../invoke.ts';
import { listingNextStep, missingForPeople, ownerPaths, placeText } from '../next-steps.ts';
import { weekText } from '../week-words.ts';
import { renderPage } from '../render.ts';
import { requireUser } from '../session.ts';
import type { PageRoutes } from './page-routes.ts';

/** Statuses in which the launch is still to choose: the Promote link then says so. */
const LAUNCH_TO_CHOOSE = new Set(['draft', 'awaiting_profile', 'awaiting_badge']);

/** The listing id of the path; anything but a positive 32-bit integer is a page that does not exist. */
export function listingIdOf(ctx: Context): number {
  const id = parseId(ctx.params.listing_id);
  if (!id) throw notFound('The listing');
  return id;
}

/**
 * The home of one of the owner's listings, in every status: where it stands in words, what
 * happens next and the one action that moves it on (next-steps.ts), its launch week and place,
 * and the links to every page of the listing.
 */
export const accountListingHomePages: PageRoutes = (router, services) => {
  router.get('/account/listings/{listing_id}', requireUser(services), async function showListingHome(ctx) {
    // Another owner's listing is "not found", the same as through the API.
    const v = await invokeForPage(ctx, services, getMyListingOp, { listing_id: listingIdOf(ctx) });
    const step = listingNextStep(v);
    const launchToChoose = v.plan === null && LAUNCH_TO_CHOOSE.has(v.status);
    await renderPage(ctx, services, {
      title: v.name,
      main: html`<section aria-labelledby="where-title" class="where" data-status="${v.status}">
<h2 id="where-title">Where it stands</h2>
<p data-field="state"><strong>${step.state}</strong></p>
${step.next && html`<p data-field="next">${step.next}</p>`}
${step.action && html`<p data-field="action"><a class="action" href="${step.action.href}">${step.action.label}</a></p>`}
<dl class="facts">
<dt>Launch week</dt><dd data-field="launch-week">${v.launch_week_start ? weekText(v.launch_week_start) : html`<span class="muted">Not chosen yet</span>`}</dd>
${v.queue_position !== null && html`<dt>Place in that week</dt><dd data-field="place">The ${placeText(v.queue_position)}</dd>`}
<dt>Website</dt><dd>${v.url}</dd>
</dl>
</section>
${missingList(missingForPeople(v.id, v.badge.status, v.missing), 'What the free launch still needs')}
<nav aria-labelledby="manage-title">
<h2 id="manage-title">Manage this listing</h2>
<ul class="manage">
<li><a href="${ownerPaths.edit(v.id)}">Edit the listing</a> — its texts, facts, links and FAQs, and the version history</li>
<li><a href="${paths.listingImages(v.id)}">Logo and preview image</a> — what link previews and the front page show</li>
<li><a href="${ownerPaths.updates(v.id)}">Updates</a> — news for the people who follow it</li>
<li><a href="${ownerPaths.milestones(v.id)}">Milestones</a> — dated steps of your company</li>
<li><a href="${ownerPaths.story(v.id)}">Founder story</a> — how it started, in your words</li>
<li><a href="${ownerPaths.launchPanel(v.id)}">Launch panel</a> — launch week, our badge and “Check now”</li>
<li><a href="${ownerPaths.promote(v.id)}">${launchToChoose ? 'Launch now or pick a week' : 'Promote'}</a> — paid launches and featured places</li>
<li><a href="${ownerPaths.orders(v.id)}">Orders</a> — what you bought for this listing</li>
<li><a href="${paths.listingStats(v.id)}">See its launch numbers</a> — views, clicks, votes and followers</li>
${v.status === 'live' && html`<li><a href="${paths.listing(v.slug)}">Public page</a> — the listing as everyone sees it</li>`}
</ul>
</nav>
<p><a href="/account/listings">All your listings</a></p>
<aside aria-labelledby="for-developers"><h2 id="for-developers">For developers</h2>
<p>Listing id <code>${v.id}</code>, status <code>${v.status}</code>, plan <code>${v.plan ?? 'null'}</code>${v.launch_week && html`, launch week <code>${v.launch_week}</code>`}.
Read it with <a href="/docs#get_my_listing">get_my_listing</a>; edit it with <a href="/docs#update_my_listing">update_my_listing</a>.</p></aside>`,
    });
  });
};
