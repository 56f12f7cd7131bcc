import type { SearchPage } from '../../domain/listings/search-port.ts';
import { AppError } from '../../errors/errors.ts';
import type { OperationContext } from '../../operations/operation.ts';
import { searchListingsOp } from '../../operations/public.ts';
import type { Context } from 'koa';
import type { PlacedListing } from '../../domain/orders/placements.ts';
import type { Leaderboard } from '../../domain/ranking/leaderboard.ts';
import { categoriesWithCounts, comingLaunches } from '../../operations/read-models/browse.ts';
import { featuredThisWeek, isoWeekStart, weekDates, weekOfText, weekRanking } from '../../operations/read-models/launches.ts';
import { votedByCaller, voteTargets } from '../../operations/read-models/votes.ts';
import { paths } from '../../lib/paths.ts';
import { categoryLinks, listingCard } from '../browse-components.ts';
import { siteOrigin } from '../head.ts';
import type { WebServices } from '../web-services.ts';
import { voteControl } from './votes.ts';
import { pager } from '../content.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage, pageContext } from '../invoke.ts';
import { renderPage } from '../render.ts';
import { currentUser } from '../session.ts';
import { keptForVisitors } from '../page-cache.ts';
import { slot } from '../personal-slots.ts';
import { newsletterSignup } from './newsletter.ts';
import { personalParts } from './personal-parts.ts';
import type { PageRoutes } from './page-routes.ts';
import { pageNumber } from './updates.ts';

const PER_PAGE = 20;
/** Ranked launches the front page shows (/launches shows more). */
const SHOWN = 20;
/** As search_listings accepts. */
const MAX_QUERY = 200;

/**
 * The front page: a search box, this week's featured listings and live listings ranked by votes
 * (with the vote buttons), next week's launches and the categories; `?q=` shows the search
 * results instead (the same search as search_listings).
 */
export const homePages: PageRoutes = (router, services) => {
  router.get(
    '/',
    keptForVisitors(
      services,
      // Only what the page reads picks the copy: a shared link's utm_* or fbclid is the same page.
      (ctx) => `home:${JSON.stringify([ctx.query.q, ctx.query.page])}`,
      async function showHome(ctx) {
        const q = searchWords(ctx.query.q);
        const page = pageNumber(ctx.query.page);
        const c = await pageContext(ctx, services);
        const user = await currentUser(ctx, services);
        const { body, jsonLd } = q
          ? { body: results(q, page, await invokeForPage(ctx, services, searchListingsOp, { q, page, per_page: PER_PAGE })), jsonLd: [] }
          : await thisWeek(ctx, services, c, Boolean(user));
        await renderPage(ctx, services, {
          title: q ? `Search: ${q}` : c.site.name,
          meta: {
            canonical: '/',
            share: { type: 'website' },
            jsonLd,
            alternates: [{ type: 'text/calendar', title: 'Launch calendar', href: '/launches.ics' }],
          },
          main: html`${searchForm(q)}${body}
<p class="muted">Owners and agents: every listing operation is in the <a href="/docs">API reference</a> (REST and MCP).</p>
${newsletterSignup()}`,
        });
      },
      // Signed in, the kept page with the person's own parts put in (src/web/personal-slots.ts).
      { personal: personalParts(services, { launch: howToLaunchSignedIn }) },
    ),
  );
};

/** `?q=`: absent or blank is no search; more than one or too long is a 400 page. */
function searchWords(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value !== 'string' || value.length > MAX_QUERY) {
    throw new AppError('validation_failed', `Search with at most ${MAX_QUERY} characters.`);
  }
  return value.trim();
}

const searchForm = (q: string) => html`<form method="get" action="/" role="search" class="search">
<label for="f-q">Search listings</label>
<input id="f-q" name="q" type="search" value="${q}" maxlength="${MAX_QUERY}">
<button type="submit">Search</button>
</form>`;

function results(q: string, page: number, found: SearchPage): SafeHtml {
  if (found.total === 0) {
    return html`<p>No live listing matches “${q}”. Try fewer or other words, or <a href="/">see this week’s listings</a>.</p>`;
  }
  const count = found.total_capped ? `More than ${found.total}` : String(found.total);
  // A capped total is a lower bound: while pages are full, there is a next one.
  const shown = (page - 1) * PER_PAGE + found.items.length;
  const known = found.total_capped ? Math.max(found.total, shown + (found.items.length === PER_PAGE ? 1 : 0)) : found.total;
  return html`<p>${count} ${found.total === 1 ? 'listing matches' : 'listings match'} “${q}”.</p>
<ol class="feed listings" start="${(page - 1) * PER_PAGE + 1}">${found.items.map(listingItem)}</ol>
${pager('/', page, PER_PAGE, known, { q })}`;
}

/** This week's ranking with votes, the featured listings, next week's launches and the categories. */
async function thisWeek(
  ctx: Context,
  services: WebServices,
  c: OperationContext,
  signedIn: boolean,
): Promise<{ body: SafeHtml; jsonLd: object[] }> {
  const weekStart = isoWeekStart(new Date());
  const [board, featured, coming, categories] = await Promise.all([
    weekRanking(c, weekStart, SHOWN),
    featuredThisWeek(c, weekStart),
    comingLaunches(c, 1),
    categoriesWithCounts(c),
  ]);
  const featuredIds = new Set(featured.map((f) => f.id));
  const heading = html`<h2>This week’s launches <span class="muted">(${weekDates(board.week_start)})</span></h2>`;
  // A personal part of the kept page (src/web/personal-slots.ts): visitors are asked to sign up.
  const howToLaunch = signedIn ? howToLaunchSignedIn() : slot('launch', '', HOW_TO_LAUNCH_VISITOR);
  const ranking =
    board.items.length === 0
      ? html`${heading}<p>No listing has launched this week yet.${coming.length > 0 ? html` ${coming.length} ${coming.length === 1 ? 'listing launches' : 'listings launch'} next week (see below).` : ' Nothing is scheduled for next week yet either.'}</p>
<p>${howToLaunch} In the meantime, <a href="/updates">see what makers shipped lately</a>.</p>`
      : html`${heading}
<ol class="cards ranking-list">${await rankedCards(ctx, services, c, board, featuredIds)}</ol>
<p><a href="/launches">The full ranking of the ${weekOfText(board.week_start)}</a> · ${howToLaunch}</p>`;
  const body = html`${featuredSection(featured)}
${ranking}
<section aria-labelledby="coming"><h2 id="coming">Launching next week</h2>
${
  coming.length === 0
    ? html`<p>No launch is scheduled for next week yet. <a href="/launches">See the coming weeks and their free slots</a>.</p>`
    : html`<ul class="cards">${coming.map((l) => listingCard(l))}</ul>
<p class="muted">Add them to your calendar: <a href="/launches.ics">launch calendar</a>.</p>`
}
</section>
<section aria-labelledby="browse-categories"><h2 id="browse-categories">Categories</h2>
${categoryLinks(categories)}
<p><a href="/categories">All categories</a></p>
</section>`;
  return { body, jsonLd: board.items.length > 0 ? [rankingJsonLd(c, services, board)] : [] };
}

const howToLaunchSignedIn = () =>
  html`Have a product? <a href="/account/listings">Draft a listing from your website</a> and launch it in a coming week.`;
const HOW_TO_LAUNCH_VISITOR = html`Have a product? <a href="/signup">Create an account</a>, draft a listing from your website and launch it in a coming week.`;

/** The week's paid featured listings, marked "Featured" (they do not change the ranking). */
function featuredSection(featured: PlacedListing[]): SafeHtml | '' {
  if (featured.length === 0) return '';
  return html`<section aria-labelledby="featured"><h2 id="featured">Featured this week</h2>
<ul class="cards">${featured.map((l) => listingCard(l, { label: 'Featured' }))}</ul></section>`;
}

/** The ranking's cards with their vote controls (while the week runs, votes come back to the front page). */
async function rankedCards(
  ctx: Context,
  services: WebServices,
  c: OperationContext,
  board: Leaderboard,
  featured: Set<number>,
): Promise<SafeHtml[]> {
  const ids = board.items.map((i) => i.id);
  const [rows, voted] = await Promise.all([voteTargets(c, ids), votedByCaller(c, ids)]);
  const targets = new Map(rows.map((r) => [r.id, r]));
  return Promise.all(
    board.items.map(async (i) =>
      listingCard(i, {
        rank: i.rank,
        label: featured.has(i.id) ? 'Featured' : undefined,
        aside: await voteControl(ctx, services, targets.get(i.id)!, voted.has(i.id), '/'),
      }),
    ),
  );
}

/** The ranking as a schema.org ItemList. */
function rankingJsonLd(c: OperationContext, services: WebServices, board: Leaderboard): object {
  const origin = siteOrigin(c.site, services.config.baseUrl);
  return {
    '@context': 'https://schema.org',
    '@type': 'ItemList',
    name: `Launches of the ${weekOfText(board.week_start)} on ${c.site.name}`,
    itemListOrder: 'https://schema.org/ItemListOrderDescending',
    numberOfItems: board.items.length,
    itemListElement: board.items.map((i) => ({ '@type': 'ListItem', position: i.rank, url: origin + paths.listing(i.slug), name: i.name })),
  };
}

function listingItem(l: { slug: string; name: string; headline: string | null }): SafeHtml {
  return html`<li><a href="/listings/${l.slug}"><strong>${l.name}</strong></a>${l.headline ? html` — ${l.headline}` : ''}</li>`;
}
