import type { Context } from 'koa';
import { publicStory } from '../../domain/founders/public-story.ts';
import { founderUrls } from '../../domain/founders/urls.ts';
import { publicListingBySlug } from '../../domain/listings/listing-views.ts';
import { removedVotes, type RemovedVotes } from '../../domain/ranking/voided-votes.ts';
import { votedListingIds } from '../../domain/ranking/votes.ts';
import { day, externalLink, textBlocks } from '../content.ts';
import { html, type SafeHtml } from '../html.ts';
import { renderPage } from '../render.ts';
import { currentUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import { claimPrompt } from './claim-link.ts';
import { followControl } from './follow.ts';
import type { PageRoutes } from './page-routes.ts';
import { voteControl } from './votes.ts';

type PublicListingPage = Awaited<ReturnType<typeof publicListingBySlug>>;

/** The public page of a live listing (what get_listing returns), with a link to its story. */
export const listingPages: PageRoutes = (router, services) => {
  router.get('/listings/:slug', async function showListing(ctx) {
    const slug = ctx.params.slug!;
    const listing = await publicListingBySlug(services.db, slug); // 404 unless live
    const story = await publicStory(services.db, slug);
    await renderPage(ctx, services, {
      title: listing.name,
      // The listing page shows the story only where it is paid for (plan or unlocked section).
      main: listingBody(
        listing,
        story?.shown_on_listing ? { title: story.title, path: founderUrls.storyPage('', listing.slug) } : null,
        html`${await followControl(ctx, services, listing)}${await claimPrompt(ctx, services, listing)}`,
        await listingVotes(ctx, services, listing),
      ),
    });
  });
};

/** The vote control of the listing page and the public count of removed votes with their reasons. */
async function listingVotes(ctx: Context, services: WebServices, listing: PublicListingPage): Promise<SafeHtml> {
  const row = await services.db('listings').where({ id: listing.id }).first('owner_id', 'launch_week');
  const user = await currentUser(ctx, services);
  const voted = user ? (await votedListingIds(services.db, user.id, [listing.id])).has(listing.id) : false;
  const path = `/listings/${encodeURIComponent(listing.slug)}`;
  const control = await voteControl(ctx, services, { ...listing, ...row }, voted, path);
  return html`${control}${removedVotesNote(await removedVotes(services.db, listing.id))}`;
}

function removedVotesNote(removed: RemovedVotes): SafeHtml {
  if (removed.total === 0) return html``;
  return html`<section class="removed-votes" aria-labelledby="removed-votes"><h2 id="removed-votes">Removed votes</h2>
<p><span data-votes-removed>${removed.total}</span> ${removed.total === 1 ? 'vote was' : 'votes were'} removed by the site team:</p>
<ul>${removed.reasons.map((r) => html`<li>${r.count} × ${r.reason}</li>`)}</ul></section>`;
}

function listingBody(l: PublicListingPage, story: { title: string; path: string } | null, follow: SafeHtml, votes: SafeHtml) {
  const socials = Object.entries(l.socials);
  const milestones = 'milestones' in l ? l.milestones : undefined;
  return html`${l.headline && html`<p class="lead">${l.headline}</p>`}
${textBlocks(l.summary)}
<ul class="facts">
<li>Website: ${externalLink(l.url, undefined, 'noopener')}</li>
<li><span data-followers>${l.follower_count}</span> ${l.follower_count === 1 ? 'follower' : 'followers'}</li>
${story && html`<li>Founder story: <a href="${story.path}">${story.title}</a></li>`}
</ul>
${votes}
${follow}
${
  socials.length > 0 &&
  html`<h2>Elsewhere</h2>
<ul>${socials.map(([platform, url]) => html`<li>${externalLink(url, platform)}</li>`)}</ul>`
}
${
  milestones &&
  milestones.length > 0 &&
  html`<h2>Milestones</h2>
<ol class="milestones">${milestones.map(
    (m) =>
      html`<li>${day(m.date)} <strong>${m.url ? externalLink(m.url, m.title) : m.title}</strong>${m.description && html`<br>${m.description}`}</li>`,
  )}</ol>`
}
${
  l.faqs.length > 0 &&
  html`<h2>Questions and answers</h2>
${l.faqs.map((f) => html`<section class="faq"><h3>${f.question}</h3>${textBlocks(f.answer)}</section>`)}`
}`;
}
