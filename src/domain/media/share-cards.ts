import type { Db } from '../../db/knex.ts';
import { sha256Hex } from '../../lib/hash.ts';
import { loadSharp } from '../../lib/sharp.ts';
import { loadFounderPhoto } from '../founders/photos.ts';
import { keptCard, renderCard } from './card.ts';
import type { MediaFile, MediaStore } from './media-port.ts';

/**
 * Share cards beside the listings' (card.ts draws all of them): a founder's, with their name,
 * the start of their bio and their photo, and each site's default one, with the site's name, for
 * pages without an image of their own. Same size and design, so every link preview looks alike.
 */

/** What a site's default card says under its name. */
const SITE_LINE = 'New products, ranked every week by the people who try them';

/** Bumped when these cards' design changes. */
const DESIGN = 1;

/** A founder's card, rendered once per version and kept in the media store; null without a public profile. */
export async function founderCardImage(
  db: Db,
  media: MediaStore,
  founder: { user_id: number; display_name: string; bio: string | null },
  siteUrl: string,
): Promise<(MediaFile & { version: string }) | null> {
  const photo = await loadFounderPhoto(db, founder.user_id);
  const inputs = { slug: '', name: founder.display_name, headline: founder.bio?.split('\n')[0] ?? null, logo_url: null, url: siteUrl };
  const version = sha256Hex(JSON.stringify([DESIGN, inputs, photo?.etag ?? null])).slice(0, 16);
  return keptCard(media, `cards/founder-${version}.png`, version, () => renderCard(inputs, photo?.image ?? null));
}

const siteCards = new Map<string, Promise<Buffer>>();

/** A site's default share card (its name and web address, the brand mark as its logo), drawn once per process. */
export function siteShareCard(siteName: string, siteUrl: string, markSvg: string): Promise<Buffer> {
  const key = JSON.stringify([siteName, siteUrl]);
  let png = siteCards.get(key);
  if (!png) {
    png = loadSharp()(Buffer.from(markSvg), { density: 300 })
      .png()
      .toBuffer()
      .then((mark) => renderCard({ slug: '', name: siteName, headline: SITE_LINE, logo_url: null, url: siteUrl }, mark));
    siteCards.set(key, png);
    png.catch(() => siteCards.delete(key));
  }
  return png;
}
