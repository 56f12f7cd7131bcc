import type { Context } from 'koa';
import type { z } from 'zod';
import { AppError, notFound } from '../../errors/errors.ts';
import { getMyListingOp } from '../../operations/listings.ts';
import { getListingOp } from '../../operations/public-listing.ts';
import { getListingStatsOp } from '../../operations/stats.ts';
import { paths } from '../../lib/paths.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage, pageContext } from '../invoke.ts';
import { countListingClick } from '../page-views.ts';
import { renderPage } from '../render.ts';
import { requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import { dayText, weekText } from '../week-words.ts';
import type { PageRoutes } from './page-routes.ts';

type Stats = z.output<typeof getListingStatsOp.output>;
type Metric = 'views' | 'clicks' | 'votes' | 'followers';

/** Each chart's words and its fill: a pattern, so the charts read the same without colour. */
const METRICS: { key: Metric; title: string; one: string; many: string; pattern: SafeHtml }[] = [
  {
    key: 'views',
    title: 'Page views',
    one: 'view',
    many: 'views',
    pattern: html`<path d="M0 6 L6 0" stroke="currentColor" stroke-width="1.5"/>`,
  },
  {
    key: 'clicks',
    title: 'Clicks to your website',
    one: 'click',
    many: 'clicks',
    pattern: html`<circle cx="3" cy="3" r="1.3" fill="currentColor"/>`,
  },
  { key: 'votes', title: 'Votes', one: 'vote', many: 'votes', pattern: html`<path d="M0 3 H6" stroke="currentColor" stroke-width="1.5"/>` },
  {
    key: 'followers',
    title: 'New followers',
    one: 'new follower',
    many: 'new followers',
    pattern: html`<path d="M3 0 V6" stroke="currentColor" stroke-width="1.5"/>`,
  },
];

/**
 * Launch analytics: `/go/{slug}` counts a click and sends the visitor to the
 * listing's website with `ref=` naming this site; the owner's `/account/listings/{id}/stats` shows
 * the launch week in charts and a table, and `stats.csv` gives its hours as CSV.
 */
export const listingStatsPages: PageRoutes = (router, services) => {
  router.get('/go/{slug}', async function goToWebsite(ctx) {
    const listing = await liveListing(ctx, services, ctx.params.slug!);
    countListingClick(ctx, services, listing.slug);
    const site = (await pageContext(ctx, services)).site;
    const target = new URL(listing.url);
    target.searchParams.set('ref', site.host ?? new URL(services.config.baseUrl).host);
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 302;
    ctx.redirect(target.href);
  });

  router.get('/account/listings/{listing_id}/stats', requireUser(services), async function showStats(ctx) {
    const listing_id = listingIdOf(ctx);
    const [listing, stats] = await Promise.all([
      invokeForPage(ctx, services, getMyListingOp, { listing_id }),
      invokeForPage(ctx, services, getListingStatsOp, { listing_id, granularity: 'day' }),
    ]);
    await renderPage(ctx, services, {
      title: `Launch numbers: ${listing.name}`,
      main: statsBody(listing, stats, (await pageContext(ctx, services)).clock.now()),
    });
  });

  router.get('/account/listings/{listing_id}/stats.csv', requireUser(services), async function statsCsv(ctx) {
    const listing_id = listingIdOf(ctx);
    const stats = await invokeForPage(ctx, services, getListingStatsOp, { listing_id, granularity: 'hour' });
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', `attachment; filename="listing-${listing_id}-stats.csv"`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = [
      'hour_utc,views,clicks,votes,followers',
      ...stats.series.map((p) => `${p.at},${p.views},${p.clicks},${p.votes},${p.followers}`),
    ].join('\r\n');
  });
};

/** get_listing (404 unless live); a slug it refuses as input (too long) names no listing either. */
async function liveListing(ctx: Context, services: WebServices, slug: string) {
  try {
    return await invokeForPage(ctx, services, getListingOp, { slug });
  } catch (err) {
    if (err instanceof AppError && err.code === 'validation_failed') throw notFound(`Listing "${slug}"`);
    throw err;
  }
}

/** The listing id of the path; anything but a positive 32-bit integer is a page that does not exist. */
function listingIdOf(ctx: Context): number {
  const raw = ctx.params.listing_id!;
  if (!/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) throw notFound('The listing');
  return Number(raw);
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
/** "Mon 23 Nov" of a day's start (UTC). */
const dayLabel = (iso: string) =>
  new Date(iso).toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' });

interface StatsListing {
  id: number;
  name: string;
  slug: string;
  status: string;
  launch_week_start: string | null;
}

/** Whether the listing has had its launch week (or is in it): only then are there numbers to show. */
const hasLaunched = (l: StatsListing, now: Date) =>
  l.status === 'live' ||
  (l.status !== 'scheduled' && l.launch_week_start !== null && Date.parse(`${l.launch_week_start}T00:00:00Z`) <= now.getTime());

const COUNTED = html`page views by people, clicks through to your website, votes and new followers, day by day`;

/** Before the launch: what the page will count, and from when, instead of empty charts. */
function beforeLaunchBody(listing: StatsListing): SafeHtml {
  const when = listing.launch_week_start
    ? html`${listing.name} launches in ${weekText(listing.launch_week_start)}. From Monday ${dayText(listing.launch_week_start)}, 00:00 UTC, this page counts its launch week: ${COUNTED}.`
    : html`${listing.name} has not launched yet. Once it has a launch week, this page counts that week: ${COUNTED}.`;
  return html`<p class="lead" data-stats="before-launch">${when}</p>
<p class="hint">We count without cookies: a view is one load of the listing page by a person (search engines and other bots are left out), and a click is a visit to your website through the listing’s link, which arrives with <code>ref=</code> naming this site.</p>
<p><a href="/account/listings/${listing.id}">Back to ${listing.name}</a></p>`;
}

function statsBody(listing: StatsListing, stats: Stats, now: Date): SafeHtml {
  if (!hasLaunched(listing, now)) return beforeLaunchBody(listing);
  const t = stats.totals;
  const span = listing.launch_week_start
    ? html`its launch week, ${weekText(listing.launch_week_start)} (from ${dayLabel(stats.from)} to ${dayLabel(new Date(Date.parse(stats.to) - 1).toISOString())}, UTC)`
    : html`the last 7 days`;
  return html`<p class="lead">In ${span}, ${listing.name} had <strong>${count(t.views, 'page view', 'page views')}</strong> from people,
<strong>${count(t.clicks, 'click', 'clicks')}</strong> through to its website, <strong>${count(t.votes, 'vote', 'votes')}</strong>
and <strong>${count(t.followers, 'new follower', 'new followers')}</strong>.</p>
<p class="hint">We count without cookies: a view is one load of the listing page by a person (search engines and other bots are left out), and a click is a visit to your website through the listing’s link, which arrives with <code>ref=</code> naming this site. New counts show within a few seconds.</p>
${METRICS.map((m) => barChart(stats, m))}
<h2 id="table-title">The numbers by day</h2>
<div class="table-scroll"><table class="stack" aria-labelledby="table-title">
<thead><tr><th scope="col">Day (UTC)</th>${METRICS.map((m) => html`<th scope="col">${m.title}</th>`)}</tr></thead>
<tbody>${stats.series.map(
    (p) => html`<tr><th scope="row">${dayLabel(p.at)}</th>${METRICS.map((m) => html`<td data-label="${m.title}">${p[m.key]}</td>`)}</tr>`,
  )}</tbody>
<tfoot><tr><th scope="row">Total</th>${METRICS.map((m) => html`<td data-label="${m.title}">${t[m.key]}</td>`)}</tr></tfoot>
</table></div>
<h2>Where the views came from</h2>
${
  stats.top_referrers.length === 0
    ? html`<p>No view came from another page yet (people typed the address, or their browser did not say where they came from).</p>`
    : html`<ol class="referrers">${stats.top_referrers.map((r) => html`<li><span data-referrer>${r.host}</span>: ${count(r.views, 'view', 'views')}</li>`)}</ol>`
}
<h2>Download</h2>
<p><a href="${paths.listingStatsCsv(listing.id)}" download>Download the launch week by hour (CSV)</a>: one row per hour in UTC with views, clicks, votes and new followers.</p>
<p><a href="/account/listings/${listing.id}">Back to the launch panel of ${listing.name}</a></p>
<aside class="hint"><h2>For developers</h2><p>The same numbers come from <code>get_listing_stats</code> (<code>GET /api/v1/me/listings/${listing.id}/stats?granularity=hour</code>), also as an MCP tool.</p></aside>`;
}

const CHART = { width: 340, height: 190, top: 22, bottom: 34, left: 8, right: 8 };

/**
 * One metric by day as an SVG bar chart: every bar carries its number and its day, and its fill is
 * the metric's pattern, so it reads without colour; the table below has the same numbers.
 */
function barChart(stats: Stats, m: (typeof METRICS)[number]): SafeHtml {
  const points = stats.series;
  const max = Math.max(1, ...points.map((p) => p[m.key]));
  const plotHeight = CHART.height - CHART.top - CHART.bottom;
  const slot = (CHART.width - CHART.left - CHART.right) / Math.max(1, points.length);
  const barWidth = Math.max(4, slot * 0.6);
  const id = `chart-${m.key}`;
  const total = stats.totals[m.key];
  const busiest = points.reduce((best, p) => (p[m.key] > best[m.key] ? p : best), points[0]!);
  const summary =
    total === 0
      ? `No ${m.many} in these days.`
      : `${count(total, m.one, m.many)} in all; the most on ${dayLabel(busiest.at)} (${busiest[m.key]}).`;
  return html`<figure class="chart" aria-labelledby="${id}-title">
<h2 id="${id}-title">${m.title}</h2>
<svg viewBox="0 0 ${CHART.width} ${CHART.height}" width="${CHART.width}" height="${CHART.height}" role="img" aria-labelledby="${id}-title ${id}-desc" focusable="false">
<desc id="${id}-desc">${summary}</desc>
<defs><pattern id="${id}-fill" width="6" height="6" patternUnits="userSpaceOnUse">${m.pattern}</pattern></defs>
<line x1="${CHART.left}" x2="${CHART.width - CHART.right}" y1="${CHART.top + plotHeight}" y2="${CHART.top + plotHeight}" stroke="currentColor"/>
${points.map((p, i) => {
  const value = p[m.key];
  const h = Math.round((value / max) * plotHeight);
  const x = CHART.left + i * slot + (slot - barWidth) / 2;
  const y = CHART.top + plotHeight - h;
  const label = dayLabel(p.at).split(' ');
  return html`<g>
<rect x="${x.toFixed(1)}" y="${y}" width="${barWidth.toFixed(1)}" height="${h}" fill="url(#${id}-fill)" stroke="currentColor"/>
<text x="${(x + barWidth / 2).toFixed(1)}" y="${y - 5}" text-anchor="middle" font-size="12" fill="currentColor">${value}</text>
<text x="${(x + barWidth / 2).toFixed(1)}" y="${CHART.height - 20}" text-anchor="middle" font-size="11" fill="currentColor">${label[0]}</text>
<text x="${(x + barWidth / 2).toFixed(1)}" y="${CHART.height - 6}" text-anchor="middle" font-size="11" fill="currentColor">${label[1]} ${label[2]}</text>
</g>`;
})}
</svg>
<figcaption>${summary}</figcaption>
</figure>`;
}
