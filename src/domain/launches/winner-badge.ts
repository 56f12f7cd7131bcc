import { createHash } from 'node:crypto';
import type { Db } from '../../db/knex.ts';
import { notFound } from '../../errors/errors.ts';
import { topPlaceOf, weekArchivePath } from '../ranking/archive.ts';
import { dayText } from '../time/week-words.ts';
import { BADGE_THEMES, COLORS, escapeXml, type BadgeSnippet, type BadgeTheme } from './badges.ts';

/**
 * The winner's badge: a listing that finished in the top three of its week says so on its own
 * site, with the place and the week, linking to the week's lasting page. Unlike the launch badge it
 * never changes (a closed week's ranking is frozen), so caches may keep it for a day.
 */

const PLACES = ['', '1st', '2nd', '3rd'];

export const winnerBadgeUrl = (baseUrl: string, slug: string, theme: BadgeTheme) =>
  `${baseUrl}/badges/${encodeURIComponent(slug)}/winner.svg?theme=${theme}`;

export function winnerBadgeSvg(o: { siteName: string; rank: number; weekStart: string; theme: BadgeTheme }): string {
  const c = COLORS[o.theme];
  const site = o.siteName.length > 24 ? `${o.siteName.slice(0, 23)}…` : o.siteName;
  const place = `${PLACES[o.rank]} of the week`;
  const week = `Week of ${dayText(o.weekStart)}`;
  const label = `${PLACES[o.rank]} place on ${site} in the week of ${dayText(o.weekStart)}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="220" height="54" viewBox="0 0 220 54" role="img" aria-label="${escapeXml(label)}">
<title>${escapeXml(label)}</title>
<rect x="0.5" y="0.5" width="219" height="53" rx="8" fill="${c.bg}" stroke="${c.border}"/>
<text x="12" y="21" font-family="system-ui,sans-serif" font-size="10" fill="${c.fg}" opacity="0.75">${escapeXml(site.toUpperCase())}</text>
<text x="12" y="40" font-family="system-ui,sans-serif" font-size="14" font-weight="700" fill="${c.accent}">${escapeXml(place)}</text>
<text x="208" y="40" text-anchor="end" font-family="system-ui,sans-serif" font-size="10" fill="${c.fg}">${escapeXml(week)}</text>
</svg>
`;
}

/** Where the listing placed, and the snippets its makers paste; null when it never finished in a top three. */
export async function winnerBadges(
  db: Db,
  baseUrl: string,
  listing: { id: number; slug: string; name: string },
  siteName: string,
): Promise<{ week_start: string; rank: number; archive_url: string; badges: BadgeSnippet[] } | null> {
  const place = await topPlaceOf(db, listing.id);
  if (!place) return null;
  const target = baseUrl + weekArchivePath(place.week_start);
  const alt = `${listing.name}: ${PLACES[place.rank]} place on ${siteName} in the week of ${dayText(place.week_start)}`;
  const badges = BADGE_THEMES.map((theme) => {
    const image = winnerBadgeUrl(baseUrl, listing.slug, theme);
    return {
      name: theme,
      html: `<a href="${escapeXml(target)}"><img src="${escapeXml(image)}" alt="${escapeXml(alt)}" width="220" height="54"></a>`,
      markdown: `[![${alt.replace(/[[\]\\]/g, '\\$&')}](${image})](${target})`,
      image_url: image,
    };
  });
  return { ...place, archive_url: target, badges };
}

/** The winner's badge of a live listing by slug, with its ETag; 404 when it has no top-three place. */
export async function winnerBadgeForSlug(db: Db, slug: string, theme: BadgeTheme): Promise<{ svg: string; etag: string }> {
  const listing = await db('listings as l')
    .join('sites as s', 's.id', 'l.site_id')
    .where({ 'l.slug': slug, 'l.status': 'live' })
    .first('l.id', 's.name as site_name');
  const place = listing ? await topPlaceOf(db, listing.id) : null;
  if (!listing || !place) throw notFound(`A winner's badge of "${slug}"`);
  const svg = winnerBadgeSvg({ siteName: listing.site_name, rank: place.rank, weekStart: place.week_start, theme });
  return { svg, etag: `"${createHash('sha256').update(svg).digest('base64url').slice(0, 22)}"` };
}
