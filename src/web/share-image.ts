/** The image link previews of a page show (og:image, twitter:image). */

/** The site's own share image (a PNG served by src/web/pages/seo.ts), for pages without one of their own. */
export const DEFAULT_SHARE_IMAGE = '/share/default.png';

/**
 * THE choice of a listing's share image: its preview image when it has one, else the site's
 * default image. (A generated card of the listing, once it exists, is returned here instead of
 * the default.) Site-relative paths are made absolute by the page head.
 */
export function listingShareImage(listing: { id: number; slug: string; image_url: string | null }): string {
  return listing.image_url ?? DEFAULT_SHARE_IMAGE;
}
