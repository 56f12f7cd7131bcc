import { listingCardImage } from '../../domain/media/card.ts';
import { founderCardImage, siteShareCard } from '../../domain/media/share-cards.ts';
import { founderPage } from './founders.ts';
import type { MediaFile } from '../../domain/media/media-port.ts';
import type { OperationContext } from '../operation.ts';

/**
 * What the /media route serves beyond founder photos: stored files by key (logos, preview
 * images) and the generated card images of live listings; and the limits the upload forms show.
 */

export { IMAGE_LIMITS } from '../../domain/media/images.ts';
export { LOGO, PREVIEW } from '../../domain/media/listing-media.ts';
export type { MediaFile };

/** A stored file by its key (its path under /media/), or null. */
export function mediaFile(c: Pick<OperationContext, 'media'>, key: string): Promise<MediaFile | null> {
  return c.media.get(key);
}

/** The card image of the live listing `slug` with its version (a hash of what it shows), or null. */
export function cardImageFile(c: Pick<OperationContext, 'db' | 'media'>, slug: string) {
  return listingCardImage(c.db, c.media, slug);
}

/** The share card of a founder with a public page on this site (name, bio, photo), or null. */
export async function founderCardFile(c: Pick<OperationContext, 'db' | 'media' | 'site'>, userId: number, siteUrl: string) {
  const founder = await founderPage(c, userId);
  return founder ? founderCardImage(c.db, c.media, founder, siteUrl) : null;
}

/** The site's default share card: its name and address, with the brand mark. */
export const siteShareImage = (c: Pick<OperationContext, 'site'>, siteUrl: string, markSvg: string) =>
  siteShareCard(c.site.name, siteUrl, markSvg);
