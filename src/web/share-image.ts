/** The image link previews of a page show (og:image, twitter:image). */

/** The site's own share image (a PNG served by src/web/pages/seo.ts), for pages without one of their own. */
export const DEFAULT_SHARE_IMAGE = '/share/default.png';

/**
 * THE choice of a listing's share image: its preview image when it has one, else its generated
 * card (name, headline and logo, 1200×630), else the site's default image. Site-relative paths
 * are made absolute by the page head.
 */
export function listingShareImage(listing: { image_url: string | null; card_image_url?: string | null }): string {
  return listing.image_url ?? listing.card_image_url ?? DEFAULT_SHARE_IMAGE;
}
