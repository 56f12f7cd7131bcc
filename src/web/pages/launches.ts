import type { Context } from 'koa';
import type { LaunchWeek } from '../../domain/launches/launch-weeks.ts';
import type { PlacedListing } from '../../domain/orders/placements.ts';
import type { Leaderboard } from '../../domain/ranking/leaderboard.ts';
import { validationFailed } from '../../errors/errors.ts';
import { listLaunchWeeksOp } from '../../operations/launches.ts';
import {
  addWeeks,
  featuredThisWeek,
  ISO_WEEK_PATTERN,
  isMonday,
  isoWeekMonday,
  isoWeekStart,
  weekOfText,
  weekRanking,
  weekText,
} from '../../operations/read-models/launches.ts';
import { votedByCaller, voteTargets } from '../../operations/read-models/votes.ts';
import { weekArchivePath } from '../../operations/read-models/archive.ts';
import { siteOrigin } from '../head.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage, pageContext } from '../invoke.ts';
import { renderPage } from '../render.ts';
import type { WebServices } from '../web-services.ts';
import { keptForVisitors } from '../page-cache.ts';
import { newsletterSignup } from './newsletter.ts';
import { personalParts } from './personal-parts.ts';
import type { PageRoutes } from './page-routes.ts';
import { voteControl } from './votes.ts';

/** Launches the page ranks (the leaderboard operation pages through the rest). */
const SHOWN = 100;

/**
 * `/launches`: a week's live launches of the request's site ranked by launch-week votes, with
 * Vote / Unvote buttons while the week runs, the ranking formula, and the upcoming weeks with
 * their free and paid slots. `?week=2026-11-23` (its Monday, as the page links it) or
 * `?week=2026-W48` shows another week (final once closed). People read weeks by their dates.
 */
export const launchesPages: PageRoutes = (router, services) => {
  router.get(
    '/launches',
    keptForVisitors(
      services,
      (ctx) => `launches:${JSON.stringify(ctx.query.week)}`, // only what the page reads picks the copy
      async function showLaunches(ctx) {
        const page = await pageContext(ctx, services);
        const weekStart = weekOf(ctx.query.week);
        const board = await weekRanking(page, weekStart, SHOWN);
        const [upcoming, featured] = await Promise.all([
          invokeForPage(ctx, services, listLaunchWeeksOp, {}),
          featuredThisWeek(page, weekStart),
        ]);
        await renderPage(ctx, services, {
          title: `Launches of the ${weekOfText(board.week_start)}`,
          meta: {
            description: `The launches of the ${weekOfText(board.week_start)} on ${page.site.name}, ranked by the votes of the week${
              board.items.length
                ? `: ${board.items
                    .slice(0, 3)
                    .map((i) => i.name)
                    .join(', ')}${board.total > 3 ? ' and more' : ''}`
                : ''
            }.`,
            // A closed week's lasting address is its archive page.
            canonical:
              board.state === 'final'
                ? weekArchivePath(board.week_start)
                : ctx.query.week === undefined
                  ? '/launches'
                  : weekPath(board.week_start),
            share: { type: 'website' },
            jsonLd: board.items.length ? [rankingItemList(board, siteOrigin(page.site, services.config.baseUrl), page.site.name)] : [],
            alternates: [{ type: 'text/calendar', title: 'Launch calendar', href: '/launches.ics' }],
          },
          main: html`${weekNavigation(board)}
${featuredStrip(featured)}
${await rankingTable(ctx, services, board)}
${howTheRankingWorks()}
${upcomingWeeksTable(upcoming.items)}
${newsletterSignup()}`,
        });
      },
      // Signed in, the kept page with the person's own parts put in (src/web/personal-slots.ts).
      { personal: personalParts(services) },
    ),
  );
};

/** A week's ranking as a schema.org ItemList. */
function rankingItemList(board: Leaderboard, origin: string, siteName: string): object {
  return {
    '@context': 'https://schema.org',
    '@type': 'ItemList',
    name: `Launches of the ${weekOfText(board.week_start)} on ${siteName}`,
    itemListOrder: 'https://schema.org/ItemListOrderDescending',
    numberOfItems: board.items.length,
    itemListElement: board.items.map((i) => ({
      '@type': 'ListItem',
      position: i.rank,
      url: `${origin}/listings/${encodeURIComponent(i.slug)}`,
      name: i.name,
    })),
  };
}

/** The week's paid featured listings, above the ranking (they do not change it). */
function featuredStrip(featured: PlacedListing[]): SafeHtml | '' {
  if (featured.length === 0) return '';
  return html`<section class="featured" aria-labelledby="featured">
<h2 id="featured">Featured this week</h2>
<ul>${featured.map((l) => html`<li><a href="/listings/${l.slug}">${l.name}</a>${l.headline ? html` — ${l.headline}` : ''}</li>`)}</ul>
</section>`;
}

/** The page of a week, by its Monday: the address people see and share. */
const weekPath = (monday: string) => `/launches?week=${monday}`;

/** The ranking rules in sentences; the field names of the API only in the aside for developers. */
function howTheRankingWorks(): SafeHtml {
  return html`<section aria-labelledby="how-ranking">
<h2 id="how-ranking">How the ranking works</h2>
<p>A launch’s score is the number of votes it got during its launch week, from Monday 00:00 to Sunday 24:00 UTC. Anyone signed in with a confirmed email address has one vote per launch, and nobody can vote for their own listing.</p>
<p>Votes that our vote-ring detectors flag are <strong>discounted</strong>: they stay visible but count nothing. The detectors look at the week every hour and once more before it closes, and the same votes always give the same score. Votes the site team removes for fraud count nothing either. Ties go to the launch listed first.</p>
<p>The results are final once the week closes on Monday at 00:00 UTC. Votes are cast on this site by people; there is no API or agent tool for voting. <a href="/ranking-policy">Read the whole ranking policy</a>.</p>
<aside class="for-developers muted" aria-labelledby="how-ranking-dev"><h3 id="how-ranking-dev">For developers</h3>
<p>The <code>formula</code> field of <code>get_community_leaderboard</code> (<code>GET /api/v1/leaderboards/community-weekly</code>) says the same for programs. Each launch there has <code>score</code>, <code>votes_discounted</code> and <code>votes_removed</code>; the vote audit gives the detectors’ reasons, such as <code>network_cluster</code>, <code>co_voting_ring</code> and <code>burst</code>. There a week is named by its ISO week.</p></aside>
</section>`;
}

function weekOf(value: unknown): string {
  if (value === undefined || value === '') return isoWeekStart(new Date());
  const monday = typeof value !== 'string' ? null : ISO_WEEK_PATTERN.test(value) ? isoWeekMonday(value) : isMonday(value) ? value : null;
  if (!monday)
    throw validationFailed(
      [{ path: 'week', message: 'Must be the Monday a week starts on, such as 2026-11-23, or an ISO week such as 2026-W48' }],
      'The week must be the Monday it starts on, such as 2026-11-23, or an ISO week such as 2026-W48.',
    );
  return monday;
}

function weekNavigation(board: Leaderboard): SafeHtml {
  const link = (monday: string, text: string) => html`<a href="${weekPath(monday)}">${text}</a>`;
  const current = isoWeekStart(new Date());
  const state =
    board.state === 'final'
      ? html`<strong data-state="final">Final results</strong> of ${weekText(board.week_start)} (<a href="${weekArchivePath(board.week_start)}">the week’s lasting page</a>).`
      : html`<strong data-state="live">Live</strong>: votes cast in ${weekText(board.week_start)}, until Sunday 24:00 UTC, count.`;
  return html`<p>${state} <a href="/ranking-policy">How votes count</a>.</p>
<p class="pager">${link(addWeeks(board.week_start, -1), '← Previous week')}${board.week_start < current ? html` · ${link(addWeeks(board.week_start, 1), 'Next week →')}` : ''}</p>`;
}

async function rankingTable(ctx: Context, services: WebServices, board: Leaderboard): Promise<SafeHtml> {
  if (board.items.length === 0) return html`<p>No launches in this week.</p>`;
  const ids = board.items.map((i) => i.id);
  const page = await pageContext(ctx, services);
  const [rows, voted] = await Promise.all([voteTargets(page, ids), votedByCaller(page, ids)]);
  const targets = new Map(rows.map((r) => [r.id, r]));
  const here = weekPath(board.week_start);
  const votable = board.state === 'live' && board.week_start === isoWeekStart(new Date());
  const controls = await Promise.all(
    board.items.map((i) => (votable ? voteControl(ctx, services, targets.get(i.id)!, voted.has(i.id), here) : html``)),
  );
  const more = board.total > board.items.length ? html` (the top ${board.items.length} of ${board.total})` : '';
  return html`<table class="ranking stack">
<caption>Ranking of ${weekText(board.week_start)}${more}</caption>
<thead><tr><th scope="col">Rank</th><th scope="col">Launch</th><th scope="col">Score</th><th scope="col">Votes removed</th>${votable ? html`<th scope="col">Your vote</th>` : ''}</tr></thead>
<tbody>${board.items.map(
    (i, n) => html`<tr data-listing="${i.slug}"><td data-rank data-label="Rank">${i.rank}</td>
<td data-label="Launch"><a href="/listings/${i.slug}">${i.name}</a>${i.headline && html`<br><span class="muted">${i.headline}</span>`}<br><a href="/listings/${i.slug}#discussion" data-comment-count="${i.comment_count}">${i.comment_count} ${i.comment_count === 1 ? 'comment' : 'comments'}<span class="visually-hidden"> on ${i.name}</span></a> · <a class="vote-audit-link" href="/listings/${i.slug}#vote-audit">Vote audit<span class="visually-hidden"> of ${i.name}</span></a></td>
<td data-score data-label="Score">${i.score}</td><td data-votes-removed data-label="Votes removed">${i.votes_removed}</td>${votable ? html`<td data-label="Your vote">${controls[n]!}</td>` : ''}</tr>`,
  )}</tbody></table>`;
}

function upcomingWeeksTable(weeks: LaunchWeek[]): SafeHtml {
  return html`<h2>Upcoming weeks</h2>
<table class="upcoming-weeks stack">
<caption>Launch slots of the coming weeks</caption>
<thead><tr><th scope="col">Week</th><th scope="col">Free slots taken</th><th scope="col">Paid slots taken</th><th scope="col">State</th></tr></thead>
<tbody>${weeks.map(
    (w) =>
      html`<tr data-week-start="${w.week_start}" data-state="${w.state}"><td data-label="Week">${weekText(w.week_start)}</td><td data-label="Free slots taken">${w.free_taken} of ${w.free_slots}</td><td data-label="Paid slots taken">${w.paid_taken} of ${w.paid_slots}${w.paid_held ? ` (${w.paid_held} held)` : ''}</td><td data-label="State">${WEEK_STATES[w.state]}</td></tr>`,
  )}</tbody></table>`;
}

const WEEK_STATES: Record<LaunchWeek['state'], string> = {
  open: 'Slots left',
  full: 'Full',
  live: 'Running now',
  closed: 'Over',
};
