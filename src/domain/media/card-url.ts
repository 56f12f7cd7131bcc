import { sha256Hex } from '../../lib/hash.ts';
import { paths } from '../../lib/paths.ts';

/** Bumped when the card's design changes, so every card URL changes with it. */
export const CARD_DESIGN = 1;

/** What a listing's generated card image shows. */
export interface CardInputs {
  slug: string;
  name: string;
  headline: string | null;
  /** The stored `/media/...` logo path (site-relative), or null. */
  logo_url: string | null;
  url: string;
}

/** A hash of what the card shows: its URL's `v` and its stored file's name. */
export const cardVersion = (l: CardInputs) => sha256Hex(JSON.stringify([CARD_DESIGN, l.name, l.headline, l.logo_url, l.url])).slice(0, 16);

/**
 * The site-relative URL of a listing's generated card image (1200×630 PNG with its name, headline
 * and logo), for `og:image` when the listing has no preview image of its own: image_url ?? card_image_url.
 */
export const cardImagePath = (l: CardInputs) => paths.listingCard(l.slug, cardVersion(l));
