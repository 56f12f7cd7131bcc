import type { Db } from '../../db/knex.ts';
import type { SearchPage } from '../../domain/listings/search-port.ts';
import { communityLeaderboard } from '../../domain/ranking/leaderboard.ts';
import { isoWeekStart } from '../../domain/ranking/weeks.ts';
import { siteForHost, type Site } from '../../domain/sites/sites.ts';
import { AppError } from '../../errors.ts';
import { pager } from '../content.ts';
import { html, type SafeHtml } from '../html.ts';
import { renderPage } from '../render.ts';
import { currentUser } from '../session.ts';
import type { PageRoutes } from './page-routes.ts';
import { pageNumber } from './updates.ts';

const PER_PAGE = 20;
/** As search_listings accepts. */
const MAX_QUERY = 200;

/**
 * The front page: a search box and this week's live listings ranked by votes; `?q=` shows the
 * search results instead (the same search as search_listings).
 */
export const homePages: PageRoutes = (router, services) => {
  router.get('/', async function showHome(ctx) {
    const q = searchWords(ctx.query.q);
    const page = pageNumber(ctx.query.page);
    const site = await siteForHost(services.db, services.caches.sites, ctx.host);
    const user = await currentUser(ctx, services);
    const body = q
      ? results(q, page, await services.search.search({ siteId: site.id, siteKey: site.key, q, page, perPage: PER_PAGE }))
      : await thisWeek(services.db, site, Boolean(user));
    await renderPage(ctx, services, {
      title: q ? `Search: ${q}` : site.name,
      main: html`${searchForm(q)}${body}
<p class="muted">Owners and agents: every listing operation is in the <a href="/docs">API reference</a> (REST and MCP).</p>`,
    });
  });
};

/** `?q=`: absent or blank is no search; more than one or too long is a 400 page. */
function searchWords(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value !== 'string' || value.length > MAX_QUERY) {
    throw new AppError(400, 'validation_failed', 'Search too long', `Search with at most ${MAX_QUERY} characters.`);
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
<ol class="feed listings" start="${(page - 1) * PER_PAGE + 1}">${found.items.map((l) => listingItem(l))}</ol>
${pager('/', page, PER_PAGE, known, { q })}`;
}

async function thisWeek(db: Db, site: Site, signedIn: boolean): Promise<SafeHtml> {
  const board = await communityLeaderboard(db, site.id, { weekStart: isoWeekStart(new Date()), page: 1, perPage: 20 });
  const heading = html`<h2>This week’s listings <span class="muted">(${board.week})</span></h2>`;
  if (board.items.length === 0) {
    return html`${heading}<p>No listing has launched this week yet.</p>
<p>${signedIn ? html`Have a product? <a href="/account/listings">Draft a listing from your website</a>` : html`Have a product? <a href="/signup">Create an account</a> and draft a listing from your website`};
in the meantime, <a href="/updates">see what makers shipped lately</a>.</p>`;
  }
  return html`${heading}
<ol class="feed listings">${board.items.map((l) => listingItem(l, l.score))}</ol>
<p class="muted">How the ranking works: ${board.formula}.</p>`;
}

function listingItem(l: { slug: string; name: string; headline: string | null }, votes?: number): SafeHtml {
  return html`<li><a href="/listings/${l.slug}"><strong>${l.name}</strong></a>${l.headline ? html` — ${l.headline}` : ''}${
    votes === undefined ? '' : html` <span class="muted">${votes} ${votes === 1 ? 'vote' : 'votes'}</span>`
  }</li>`;
}
