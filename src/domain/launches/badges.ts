import { createHash } from 'node:crypto';
import { TtlCache } from '../../cache/ttl-cache.ts';
import type { Db } from '../../db/knex.ts';
import { notFound } from '../../errors/errors.ts';
import { communityLeaderboard } from '../ranking/leaderboard.ts';
import { isoWeekStart } from '../../workflows/contracts/weeks.ts';
import { dayText } from '../time/week-words.ts';

export const BADGE_THEMES = ['light', 'dark'] as const;
export type BadgeTheme = (typeof BADGE_THEMES)[number];

export interface BadgeSnippet {
  name: BadgeTheme;
  html: string;
  markdown: string;
  image_url: string;
}

export const escapeXml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The public page a badge links to (what the badge check looks for). */
export const badgeTargetUrl = (baseUrl: string, slug: string) => `${baseUrl}/listings/${encodeURIComponent(slug)}`;
export const badgeImageUrl = (baseUrl: string, slug: string, theme: BadgeTheme) =>
  `${baseUrl}/badges/${encodeURIComponent(slug)}.svg?theme=${theme}`;

/** The snippets an owner pastes on their site: a link to the listing around the badge image. */
export function badgeSnippets(baseUrl: string, listing: { slug: string; name: string }, siteName: string): BadgeSnippet[] {
  const target = badgeTargetUrl(baseUrl, listing.slug);
  const alt = `${listing.name} on ${siteName}`;
  return BADGE_THEMES.map((theme) => {
    const image = badgeImageUrl(baseUrl, listing.slug, theme);
    return {
      name: theme,
      html: `<a href="${escapeXml(target)}"><img src="${escapeXml(image)}" alt="${escapeXml(alt)}" width="220" height="54"></a>`,
      markdown: `[![${alt.replace(/[[\]\\]/g, '\\$&')}](${image})](${target})`,
      image_url: image,
    };
  });
}

export const COLORS: Record<BadgeTheme, { bg: string; fg: string; border: string; accent: string }> = {
  light: { bg: '#ffffff', fg: '#1a1a1a', border: '#d0d0d0', accent: '#c2410c' },
  dark: { bg: '#1a1a1a', fg: '#ffffff', border: '#3a3a3a', accent: '#fb923c' },
};

/** Where a listing's launch stands, as its badge says it: launched (live) or launching (any earlier step). */
export interface BadgeLaunch {
  live: boolean;
  /** Monday of the launch week, once one is booked. */
  weekStart: string | null;
}

/**
 * The badge image: what is true of the launch ("Launching on" before it, "Launched on" once live)
 * and the site's name; once live, the listing's votes and, while its launch week runs, its rank;
 * before, the week it launches in, when booked.
 */
export function badgeSvg(o: { siteName: string; votes: number; rank: number | null; theme: BadgeTheme; launch: BadgeLaunch }): string {
  const c = COLORS[o.theme];
  const site = o.siteName.length > 24 ? `${o.siteName.slice(0, 23)}…` : o.siteName;
  const heading = o.launch.live ? 'Launched on' : 'Launching on';
  const day = o.launch.weekStart ? dayText(o.launch.weekStart) : null;
  const [top, bottom] = o.launch.live
    ? [`▲ ${o.votes}`, o.rank === null ? '' : `#${o.rank} this week`]
    : day
      ? [day.slice(0, day.lastIndexOf(' ')), day.slice(day.lastIndexOf(' ') + 1)]
      : ['', 'soon'];
  const label = o.launch.live
    ? `${heading} ${site}: ${o.votes} ${o.votes === 1 ? 'vote' : 'votes'}${o.rank === null ? '' : `, ranked ${o.rank} this week`}`
    : `${heading} ${site}${day ? ` in the week of ${day}` : ' soon'}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="220" height="54" viewBox="0 0 220 54" role="img" aria-label="${escapeXml(label)}">
<title>${escapeXml(label)}</title>
<rect x="0.5" y="0.5" width="219" height="53" rx="8" fill="${c.bg}" stroke="${c.border}"/>
<text x="12" y="21" font-family="system-ui,sans-serif" font-size="10" fill="${c.fg}" opacity="0.75">${escapeXml(heading.toUpperCase())}</text>
<text x="12" y="40" font-family="system-ui,sans-serif" font-size="14" font-weight="700" fill="${c.fg}">${escapeXml(site)}</text>
<text x="208" y="24" text-anchor="end" font-family="system-ui,sans-serif" font-size="15" font-weight="700" fill="${c.accent}">${escapeXml(top)}</text>
<text x="208" y="42" text-anchor="end" font-family="system-ui,sans-serif" font-size="10" fill="${c.fg}">${escapeXml(bottom)}</text>
</svg>
`;
}

/** The badge of a listing by slug (any status but unlisted: owners place it before launch), with its ETag. */
export async function badgeForSlug(db: Db, ranks: WeekRanksCache, slug: string, theme: BadgeTheme): Promise<{ svg: string; etag: string }> {
  const listing = await db('listings as l')
    .join('sites as s', 's.id', 'l.site_id')
    .where('l.slug', slug)
    .whereNot('l.status', 'unlisted')
    .first('l.id', 'l.site_id', 'l.votes', 'l.status', 'l.launch_week', 's.name as site_name');
  if (!listing) throw notFound(`The badge of "${slug}"`);
  const rank = listing.status === 'live' ? ((await weekRanks(db, ranks, listing.site_id)).get(listing.id) ?? null) : null;
  const launch = { live: listing.status === 'live', weekStart: (listing.launch_week as string | null) ?? null };
  const svg = badgeSvg({ siteName: listing.site_name, votes: listing.votes, rank, theme, launch });
  return { svg, etag: `"${createHash('sha256').update(svg).digest('base64url').slice(0, 22)}"` };
}

/** Badges are fetched on every view of every owner's page: the week's ranks are shared for a few seconds. */
const RANKS_TTL_MS = 5_000;

/** This week's ranks per site, one cache per process (built by createServices). */
export type WeekRanksCache = TtlCache<Map<number, number>>;

export const createWeekRanksCache = (): WeekRanksCache => new TtlCache({ ttlMs: RANKS_TTL_MS, maxEntries: 100 });

/** This week's leaderboard ranks of a site, listing id → rank. */
function weekRanks(db: Db, cache: WeekRanksCache, siteId: number): Promise<Map<number, number>> {
  return cache.get(String(siteId), async () => {
    const board = await communityLeaderboard(db, siteId, { weekStart: isoWeekStart(new Date()), page: 1, perPage: 100 });
    return new Map(board.items.map((i: { id: number; rank: number }) => [i.id, i.rank]));
  });
}
