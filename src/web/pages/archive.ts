import type { Context } from 'koa';
import { appError, notFound } from '../../errors/errors.ts';
import { archiveIndex, bestOfPeriod, weekArchive, weekArchivePath, weekOfArchivePath } from '../../operations/read-models/archive.ts';
import { addWeeks, isoWeekLabel, launchWeekEnd, weekOfText, weekText } from '../../operations/read-models/launches.ts';
import { paths } from '../../lib/paths.ts';
import { siteOrigin } from '../head.ts';
import { SHARE_SCRIPT, shareControl } from '../share-control.ts';
import { html, type SafeHtml } from '../html.ts';
import { pageContext } from '../invoke.ts';
import { keptForVisitors } from '../page-cache.ts';
import { renderPage } from '../render.ts';
import { listingShareImage } from '../share-image.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';

/** Launches a month's and a year's best-of pages list. */
const BEST_SHOWN = { month: 30, year: 50 };

const PLACE_WORDS = ['', '1st place', '2nd place', '3rd place'];

/** The feed of closed weeks, offered by every archive page. */
const WEEKS_FEED = { type: 'application/atom+xml', title: 'Weekly results (Atom)', href: '/feeds/weeks.xml' } as const;

const monthName = (year: number, month: number) =>
  new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(Date.UTC(year, month - 1, 1)));

/** `/best/2026/11` for the month a week's Monday is in. */
const monthPathOf = (monday: string) => `/best/${Number(monday.slice(0, 4))}/${Number(monday.slice(5, 7))}`;

/**
 * The archive every closed week stays findable in: `/launches/{year}/{week}` (a week's final
 * ranking, counted and discounted votes, its featured launches), `/best/{year}/{month}` and
 * `/best/{year}` (the best launches of the weeks whose Monday is in that month or year), and
 * `/best`, the index of them all. Closed weeks never change, so visitors get kept copies.
 */
export const archivePages: PageRoutes = (router, services) => {
  router.get(
    '/launches/{year}/{week}',
    keptForVisitors(
      services,
      (ctx) => `archive:week:${ctx.params.year}:${ctx.params.week}`,
      async function showWeekArchive(ctx) {
        const monday = weekOfArchivePath(ctx.params.year!, ctx.params.week!);
        if (!monday) throw notFound('The week');
        const c = await pageContext(ctx, services);
        if (launchWeekEnd(monday) > c.clock.now()) {
          throw appError(
            'not_found',
            `The ${weekOfText(monday)} is not over yet, so it has no final results. Its live ranking is on the launches page: /launches?week=${monday}.`,
          );
        }
        const { board, featured, winnerImage } = await weekArchive(c, monday);
        const final = board.state === 'final';
        const top = final ? board.items.filter((i) => i.rank <= 3 && i.score > 0) : [];
        const origin = siteOrigin(c.site, services.config.baseUrl);
        await renderPage(ctx, services, {
          title: `Launches of the ${weekOfText(monday)}: final results`,
          script: SHARE_SCRIPT,
          meta: {
            description: `The final ranking of the launches of ${weekText(monday)} on ${c.site.name}${
              top.length ? `: ${top.map((i) => `${PLACE_WORDS[i.rank]} ${i.name}`).join(', ')}` : ''
            }.`,
            canonical: weekArchivePath(monday),
            share: { type: 'website', image: top[0] ? listingShareImage({ image_url: winnerImage }) : undefined },
            alternates: [WEEKS_FEED],
            jsonLd: board.items.length ? [itemList(`Launches of the ${weekOfText(monday)}`, board.items, origin)] : [],
          },
          main: html`<p>${
            final || board.items.length === 0
              ? html`<strong data-state="final">Final results</strong> of ${weekText(monday)} (ISO week ${isoWeekLabel(monday)}), ranked by the votes of the week.`
              : html`${weekText(monday)} is over; its results become final when the week’s close has run, within minutes of Monday 00:00 UTC.`
          } Part of <a href="${monthPathOf(monday)}">the best of ${monthName(Number(monday.slice(0, 4)), Number(monday.slice(5, 7)))}</a>.</p>
<p class="pager"><a href="${weekArchivePath(addWeeks(monday, -1))}">← Previous week</a>${
            launchWeekEnd(addWeeks(monday, 1)) <= c.clock.now()
              ? html` · <a href="${weekArchivePath(addWeeks(monday, 1))}">Next week →</a>`
              : ''
          }</p>
${top.length ? winners(top) : ''}
${featured.length ? html`<section aria-labelledby="featured"><h2 id="featured">Featured that week</h2><ul>${featured.map((l) => html`<li><a href="${paths.listing(l.slug)}">${l.name}</a>${l.headline ? html` — ${l.headline}` : ''}</li>`)}</ul></section>` : ''}
${board.items.length ? finalRanking(board.items, weekText(monday)) : html`<p>No launches that week.</p>`}
${shareControl(origin + weekArchivePath(monday), `Launches of the ${weekOfText(monday)} on ${c.site.name}`)}`,
        });
      },
    ),
  );

  router.get(
    '/best/{year}/{month}',
    keptForVisitors(
      services,
      (ctx) => `archive:month:${ctx.params.year}:${ctx.params.month}`,
      async function showBestOfMonth(ctx) {
        const year = yearOf(ctx.params.year);
        const month = /^(?:[1-9]|1[0-2])$/.test(ctx.params.month!) ? Number(ctx.params.month) : null;
        if (year === null || month === null) throw notFound('The month');
        await bestOfPage(ctx, services, year, month);
      },
    ),
  );

  router.get(
    '/best/{year}',
    keptForVisitors(
      services,
      (ctx) => `archive:year:${ctx.params.year}`,
      async function showBestOfYear(ctx) {
        const year = yearOf(ctx.params.year);
        if (year === null) throw notFound('The year');
        await bestOfPage(ctx, services, year, undefined);
      },
    ),
  );

  router.get(
    '/best',
    keptForVisitors(
      services,
      () => 'archive:index',
      async function showArchiveIndex(ctx) {
        const c = await pageContext(ctx, services);
        const { months, years } = await archiveIndex(c);
        await renderPage(ctx, services, {
          title: 'The best launches, week by week',
          meta: {
            description: `Every closed week of ${c.site.name}, and the best launches of each month and year.`,
            share: { type: 'website' },
            alternates: [WEEKS_FEED],
          },
          main: months.length
            ? html`<p>Every week of ${c.site.name} keeps its final ranking. The best launches of each year and month:</p>
<ul class="archive-years">${years.map(
                (y) =>
                  html`<li><a href="/best/${y}">Best of ${y}</a><ul>${months
                    .filter((m) => m.startsWith(`${y}-`))
                    .map(
                      (m) => html`<li><a href="/best/${y}/${Number(m.slice(5))}">${monthName(y, Number(m.slice(5)))}</a></li>`,
                    )}</ul></li>`,
              )}</ul>`
            : html`<p>No week has closed yet. The <a href="/launches">launches of this week</a> are ranked live.</p>`,
        });
      },
    ),
  );
};

/** A month's or a year's best launches and its closed weeks with their top three. */
async function bestOfPage(ctx: Context, services: WebServices, year: number, month: number | undefined): Promise<void> {
  const c = await pageContext(ctx, services);
  const { best, weeks } = await bestOfPeriod(c, year, month, month === undefined ? BEST_SHOWN.year : BEST_SHOWN.month);
  const period = month === undefined ? String(year) : monthName(year, month);
  const origin = siteOrigin(c.site, services.config.baseUrl);
  await renderPage(ctx, services, {
    title: `Best of ${period}`,
    meta: {
      description: `The best launches of ${period} on ${c.site.name}${
        best.length
          ? `: ${best
              .slice(0, 3)
              .map((b) => b.name)
              .join(', ')}`
          : ''
      }.`,
      canonical: month === undefined ? `/best/${year}` : `/best/${year}/${month}`,
      alternates: [WEEKS_FEED],
      share: { type: 'website', image: best[0] ? listingShareImage(best[0]) : undefined },
      jsonLd: best.length
        ? [
            itemList(
              `Best of ${period}`,
              best.map((b, n) => ({ ...b, rank: n + 1 })),
              origin,
            ),
          ]
        : [],
    },
    main: html`<p>The launches with the most votes in their launch week, over the weeks that started in ${period}. <a href="/best">Every month and year</a>.</p>
${
  best.length
    ? html`<ol class="best-of">${best.map(
        (b) =>
          html`<li data-listing="${b.slug}"><a href="${paths.listing(b.slug)}">${b.name}</a>${b.headline ? html` — <span class="muted">${b.headline}</span>` : ''}<br>${votesText(b.score)}, ${PLACE_WORDS[b.rank] ?? `${ordinal(b.rank)} place`} in the <a href="${weekArchivePath(b.week_start)}">${weekOfText(b.week_start)}</a></li>`,
      )}</ol>`
    : html`<p>No launch got a vote in a week that started in ${period}.</p>`
}
${weeks.length ? html`<h2>The weeks</h2><ul class="archive-weeks">${weeks.map((w) => html`<li><a href="${weekArchivePath(w.week_start)}">${weekText(w.week_start)}</a>: ${w.top.map((t) => html`${PLACE_WORDS[t.rank]} <a href="${paths.listing(t.slug)}">${t.name}</a>`).reduce<SafeHtml[]>((all, part, n) => (n ? [...all, html`, `, part] : [part]), [])}</li>`)}</ul>` : ''}`,
  });
}

function winners(top: { rank: number; slug: string; name: string; headline: string | null; score: number }[]): SafeHtml {
  return html`<section aria-labelledby="winners"><h2 id="winners">Top of the week</h2>
<ol class="winners">${top.map((i) => html`<li data-place="${i.rank}"><strong>${PLACE_WORDS[i.rank]}</strong>: <a href="${paths.listing(i.slug)}">${i.name}</a>${i.headline ? html` — ${i.headline}` : ''} (${votesText(i.score)})</li>`)}</ol></section>`;
}

function finalRanking(
  items: { rank: number; slug: string; name: string; score: number; votes_discounted: number; votes_removed: number }[],
  week: string,
): SafeHtml {
  return html`<table class="ranking stack">
<caption>Final ranking of ${week}</caption>
<thead><tr><th scope="col">Rank</th><th scope="col">Launch</th><th scope="col">Votes counted</th><th scope="col">Votes discounted</th><th scope="col">Votes removed</th></tr></thead>
<tbody>${items.map(
    (
      i,
    ) => html`<tr data-listing="${i.slug}"><td data-label="Rank">${i.rank}</td><td data-label="Launch"><a href="${paths.listing(i.slug)}">${i.name}</a><br><a class="vote-audit-link" href="${paths.listing(i.slug)}#vote-audit">Vote audit<span class="visually-hidden"> of ${i.name}</span></a></td>
<td data-label="Votes counted">${i.score}</td><td data-label="Votes discounted">${i.votes_discounted}</td><td data-label="Votes removed">${i.votes_removed}</td></tr>`,
  )}</tbody></table>`;
}

function itemList(name: string, items: { rank: number; slug: string; name: string }[], origin: string): object {
  return {
    '@context': 'https://schema.org',
    '@type': 'ItemList',
    name,
    itemListOrder: 'https://schema.org/ItemListOrderDescending',
    numberOfItems: items.length,
    itemListElement: items.map((i) => ({ '@type': 'ListItem', position: i.rank, url: origin + paths.listing(i.slug), name: i.name })),
  };
}

const votesText = (n: number) => (n === 1 ? '1 vote' : `${n} votes`);

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** A year from 2000 on (no launch week is older), as the URL gives it; null otherwise. */
function yearOf(value: string | undefined): number | null {
  return value !== undefined && /^2\d{3}$/.test(value) ? Number(value) : null;
}
