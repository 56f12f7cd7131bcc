import type { Context } from 'koa';
import { displayName } from '../../operations/read-models/display-names.ts';
import type { z } from 'zod';
import type { RemovedVotes } from '../../domain/ranking/voided-votes.ts';
import { AppError, notFound } from '../../errors/errors.ts';
import type { PublicListingView } from '../../operations/listing-edit-schemas.ts';
import { getListingOp } from '../../operations/public-listing.ts';
import { makersOf, updatesOfListing } from '../../operations/read-models/browse.ts';
import { storyPage } from '../../operations/read-models/founders.ts';
import { topPlaceOf, weekArchivePath } from '../../operations/read-models/archive.ts';
import { weekOfText } from '../../operations/read-models/launches.ts';
import { removedVotesOf, votedByCaller, voteTargets, type VoteTarget } from '../../operations/read-models/votes.ts';
import { paths } from '../../lib/paths.ts';
import { day, displayUrl, externalLink, textBlocks } from '../content.ts';
import { siteOrigin } from '../head.ts';
import { SHARE_SCRIPT, shareControl } from '../share-control.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage, pageContext } from '../invoke.ts';
import { keptForVisitors, listingPageKey } from '../page-cache.ts';
import { countListingView } from '../page-views.ts';
import { renderPage } from '../render.ts';
import { factItems, listingHead, listingMeta, makersSection, updatesSection } from '../listing-parts.ts';
import type { WebServices } from '../web-services.ts';
import { claimPrompt } from './claim-link.ts';
import { personalParts } from './personal-parts.ts';
import { followControl } from './follow.ts';
import type { PageRoutes } from './page-routes.ts';
import { voteAuditSection } from './vote-audit.ts';
import { voteControl } from './votes.ts';
import { discussion, FIRST_COMMENTS } from './comments.ts';
import { discussionJsonLd } from '../comments-view.ts';
import { listCommentsOp } from '../../operations/comments.ts';

type PublicListingPage = z.output<typeof PublicListingView>;

const PLACES = ['', '1st', '2nd', '3rd'];

/** Updates the listing page shows (all are on /updates). */
const LATEST_UPDATES = 3;

/** The public page of a live listing (what get_listing returns), with a link to its story. */
export const listingPages: PageRoutes = (router, services) => {
  router.get(
    '/listings/{slug}',
    keptForVisitors(
      services,
      (ctx) => listingPageKey(ctx.params.slug!),
      async function showListing(ctx) {
        const slug = ctx.params.slug!;
        const listing = await liveListing(ctx, services, slug);
        const page = await pageContext(ctx, services);
        const [story, [target], makers, updates, place, thread] = await Promise.all([
          storyPage(page, slug),
          voteTargets(page, [listing.id]),
          makersOf(page, listing.id),
          updatesOfListing(page, listing.id, LATEST_UPDATES),
          topPlaceOf(page.db, listing.id),
          invokeForPage(ctx, services, listCommentsOp, { listing_id: listing.id, sort: 'top', page: 1, per_page: FIRST_COMMENTS }),
        ]);
        const origin = siteOrigin(page.site, services.config.baseUrl);
        const meta = listingMeta(listing, origin, page.site.name);
        meta.jsonLd = [...(meta.jsonLd ?? []), discussionJsonLd(thread, listing, origin + paths.listing(listing.slug))];
        await renderPage(ctx, services, {
          title: listing.name,
          meta,
          script: SHARE_SCRIPT,
          // The listing page shows the story only where it is paid for (plan or unlocked section).
          main: html`${listingBody(
            listing,
            story?.shown_on_listing ? { title: story.title, path: paths.story(listing.slug) } : null,
            place,
            html`${await followControl(ctx, services, listing)}${await claimPrompt(ctx, services, target!)}`,
            await listingVotes(ctx, services, target!),
            html`${makersSection(makers)}${updatesSection(updates)}${shareControl(origin + paths.listing(listing.slug), listing.name)}`,
          )}${await discussion(ctx, services, listing.slug, thread)}`,
        });
      },
      // A kept copy, sent by the route or the lane in front of it, counts like a fresh page.
      // Signed in, the kept page with the person's own parts put in (src/web/personal-slots.ts).
      { visited: (ctx, { slug }) => countListingView(ctx, services, slug!), personal: personalParts(services) },
    ),
  );
};

/** get_listing (404 unless live); a slug it refuses as input (too long) names no listing either. */
async function liveListing(ctx: Context, services: WebServices, slug: string): Promise<PublicListingPage> {
  try {
    return await invokeForPage(ctx, services, getListingOp, { slug });
  } catch (err) {
    if (err instanceof AppError && err.code === 'validation_failed') throw notFound(`Listing "${slug}"`);
    throw err;
  }
}

/** The vote control of the listing page and the public count of removed votes with their reasons. */
async function listingVotes(ctx: Context, services: WebServices, target: VoteTarget): Promise<SafeHtml> {
  const page = await pageContext(ctx, services);
  const [voted, removed] = await Promise.all([votedByCaller(page, [target.id]), removedVotesOf(page, target.id)]);
  const control = await voteControl(ctx, services, target, voted.has(target.id), paths.listing(target.slug));
  return html`${control}${removedVotesNote(removed)}${await voteAuditSection(ctx, services, target.slug)}`;
}

function removedVotesNote(removed: RemovedVotes): SafeHtml {
  if (removed.total === 0) return html``;
  return html`<section class="removed-votes" aria-labelledby="removed-votes"><h2 id="removed-votes">Removed votes</h2>
<p><span data-votes-removed>${removed.total}</span> ${removed.total === 1 ? 'vote was' : 'votes were'} removed by the site team:</p>
<ul>${removed.reasons.map((r) => html`<li>${r.count} × ${r.reason}</li>`)}</ul></section>`;
}

function listingBody(
  l: PublicListingPage,
  story: { title: string; path: string } | null,
  place: { week_start: string; rank: number } | null,
  follow: SafeHtml,
  votes: SafeHtml,
  people: SafeHtml,
) {
  const socials = Object.entries(l.socials);
  const milestones = 'milestones' in l ? l.milestones : undefined;
  return html`${listingHead(l)}
${textBlocks(l.summary)}
<ul class="facts">
<li>Website: <a href="${paths.go(l.slug)}" rel="noopener">${displayUrl(l.url)}</a></li>
${factItems(l)}
<li><span data-followers>${l.follower_count}</span> ${l.follower_count === 1 ? 'follower' : 'followers'}</li>
${story && html`<li>Founder story: <a href="${story.path}">${story.title}</a></li>`}
${place && html`<li data-place="${place.rank}"><strong>${PLACES[place.rank]} place</strong> in the <a href="${weekArchivePath(place.week_start)}">${weekOfText(place.week_start)}</a></li>`}
</ul>
${votes}
${follow}
${people}
${
  socials.length > 0 &&
  html`<h2>Elsewhere</h2>
<ul>${socials.map(([platform, url]) => html`<li>${externalLink(url, displayName('platform', platform))}</li>`)}</ul>`
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
