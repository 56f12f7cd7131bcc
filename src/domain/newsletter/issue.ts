import type { Db } from '../../db/knex.ts';
import { absoluteUrl, mediaUrl, paths } from '../../lib/paths.ts';
import { addWeeks, isoWeekLabel } from '../../workflows/contracts/weeks.ts';
import { featuredListings } from '../orders/placements.ts';
import { weekArchivePath, weekOfArchivePath } from '../ranking/archive.ts';
import { weekOfText } from '../time/week-words.ts';

/** Launches of the week shown in an issue (the archive page has the whole ranking). */
const TOP = 10;
/** Launches of the coming week shown. */
const UPCOMING = 20;

/** One listing as an issue shows it. */
export interface IssueListing {
  name: string;
  slug: string;
  headline: string | null;
  logo_url: string | null;
  /** Its place in the closed week; null for featured and upcoming launches. */
  rank: number | null;
  score: number | null;
}

/** What an issue of a site's newsletter says about one closed week. */
export interface IssueContent {
  site: { id: number; name: string };
  week_start: string;
  top: IssueListing[];
  featured: IssueListing[];
  upcoming: IssueListing[];
}

/** `/newsletter/2026/48`: the web version of a week's issue. */
export function newsletterIssuePath(monday: string): string {
  return weekArchivePath(monday).replace(/^\/launches\//, '/newsletter/');
}

/** The Monday of `/newsletter/{year}/{week}`, or null when that week does not exist. */
export const weekOfIssuePath = weekOfArchivePath;

/** Whether the site has an issue about this week (it exists once the week was closed). */
export async function issueExists(db: Db, siteId: number, monday: string): Promise<boolean> {
  return (await db('newsletter_issues').where({ site_id: siteId, week: monday }).first('id')) !== undefined;
}

/** Reads an issue's content: the week's final top launches, its featured launches and next week's launches. */
export async function readIssue(db: Db, site: { id: number; name: string }, monday: string): Promise<IssueContent> {
  const listingColumns = ['l.name', 'l.slug', 'l.headline', 'l.logo_url'];
  const [top, featured, upcoming] = await Promise.all([
    db('weekly_results as r')
      .join('listings as l', 'l.id', 'r.listing_id')
      .where({ 'r.site_id': site.id, 'r.week': monday, 'l.status': 'live' })
      .orderBy('r.rank')
      .limit(TOP)
      .select([...listingColumns, 'r.rank', 'r.score']),
    featuredListings(db, site.id, monday),
    db('listings as l')
      .where({ 'l.site_id': site.id, 'l.launch_week': addWeeks(monday, 1) })
      .whereIn('l.status', ['scheduled', 'live'])
      .orderBy('l.name')
      .orderBy('l.id')
      .limit(UPCOMING)
      .select(listingColumns),
  ]);
  const plain = (l: { name: string; slug: string; headline: string | null; logo_url: string | null }): IssueListing => ({
    name: l.name,
    slug: l.slug,
    headline: l.headline,
    logo_url: l.logo_url,
    rank: null,
    score: null,
  });
  return {
    site,
    week_start: monday,
    top: top as IssueListing[],
    featured: featured.map(plain),
    upcoming: (upcoming as IssueListing[]).map(plain),
  };
}

/** The subject line of an issue. */
export const issueSubject = (c: IssueContent) => `${c.site.name}: the launches of the ${weekOfText(c.week_start)}`;

/** The issue's plain-text part; `unsubscribeUrl` ends it (the same link the List-Unsubscribe header carries). */
export function issueText(c: IssueContent, baseUrl: string, unsubscribeUrl: string): string {
  const url = (path: string) => absoluteUrl(baseUrl, path);
  const line = (l: IssueListing) =>
    `${l.rank !== null ? `#${l.rank} ` : ''}${l.name}${l.headline ? ` — ${l.headline}` : ''}${l.score !== null ? ` (${l.score} ${l.score === 1 ? 'vote' : 'votes'})` : ''}\n   ${url(paths.listing(l.slug))}`;
  const section = (title: string, items: IssueListing[], empty: string) =>
    [title, '', ...(items.length ? items.map(line) : [empty]), ''].join('\n');
  return [
    `The launches of the ${weekOfText(c.week_start)} on ${c.site.name}. The results are final.`,
    `Read it on the web: ${url(newsletterIssuePath(c.week_start))}`,
    '',
    section('TOP LAUNCHES', c.top, 'No launches this week.'),
    c.featured.length
      ? section(
          'FEATURED',
          c.featured.map((l) => ({ ...l, name: `[Featured] ${l.name}` })),
          '',
        )
      : '',
    `The whole ranking: ${url(weekArchivePath(c.week_start))}`,
    '',
    section(`COMING NEXT WEEK (${isoWeekLabel(addWeeks(c.week_start, 1))})`, c.upcoming, 'Nothing scheduled yet.'),
    `You get this because you subscribed to the ${c.site.name} weekly newsletter.`,
    `Unsubscribe: ${unsubscribeUrl}`,
    '',
  ].join('\n');
}

const escape = (s: string) => s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

/** The issue's HTML part: the same content with logos, for mail clients that show HTML. */
export function issueHtml(c: IssueContent, baseUrl: string, unsubscribeUrl: string): string {
  const url = (path: string) => escape(absoluteUrl(baseUrl, path));
  const item = (l: IssueListing, featured = false) => {
    const logo = mediaUrl(baseUrl, l.logo_url);
    return `<tr><td style="padding:8px 12px 8px 0;vertical-align:top;width:48px">${
      logo ? `<img src="${escape(logo)}" alt="" width="48" height="48" style="border-radius:8px">` : ''
    }</td><td style="padding:8px 0"><a href="${url(paths.listing(l.slug))}" style="font-weight:bold;color:#1a4fd6">${
      l.rank !== null ? `#${l.rank} ` : ''
    }${escape(l.name)}</a>${featured ? ' <strong style="color:#8a5a00">Featured</strong>' : ''}${
      l.headline ? `<br><span style="color:#333">${escape(l.headline)}</span>` : ''
    }</td></tr>`;
  };
  const table = (items: IssueListing[], featured = false) =>
    `<table role="presentation" style="border-collapse:collapse">${items.map((l) => item(l, featured)).join('')}</table>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(issueSubject(c))}</title></head>
<body style="font-family:system-ui,sans-serif;max-width:600px;margin:0 auto;padding:16px;color:#111">
<p><a href="${url(newsletterIssuePath(c.week_start))}">Read it on the web</a></p>
<h1 style="font-size:22px">The launches of the ${escape(weekOfText(c.week_start))} on ${escape(c.site.name)}</h1>
<h2 style="font-size:18px">Top launches</h2>${c.top.length ? table(c.top) : '<p>No launches this week.</p>'}
${c.featured.length ? `<h2 style="font-size:18px">Featured</h2>${table(c.featured, true)}` : ''}
<p><a href="${url(weekArchivePath(c.week_start))}">The whole ranking of the week</a></p>
<h2 style="font-size:18px">Coming next week</h2>${c.upcoming.length ? table(c.upcoming) : '<p>Nothing scheduled yet.</p>'}
<p style="color:#555;font-size:13px">You get this because you subscribed to the ${escape(c.site.name)} weekly newsletter.
<a href="${escape(unsubscribeUrl)}">Unsubscribe</a></p>
</body></html>`;
}
