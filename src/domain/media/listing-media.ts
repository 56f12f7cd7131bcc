import type { Db } from '../../db/knex.ts';
import { sha256Hex } from '../../lib/hash.ts';
import { paths } from '../../lib/paths.ts';
import { getOwnedListing } from '../listings/listings.ts';
import { checkImage, renderImage } from './images.ts';
import type { MediaFile, MediaStore } from './media-port.ts';

/** A listing's logo: square, kept whole on a transparent square, stored as PNG in two sizes. */
export const LOGO = { what: 'The logo', minSide: 64, sizes: [256, 64] } as const;
/** A listing's preview image (link previews, the listing page): 1200×630, cropped to fill, JPEG. */
export const PREVIEW = { what: 'The image', minSide: 200, width: 1200, height: 630 } as const;

export type ListingMediaKind = 'logo' | 'image';

/** A processed image: the files to store and the `/media/...` path the listing keeps. */
export interface ProcessedMedia {
  path: string;
  files: MediaFile[];
}

const hashOf = (body: Buffer) => sha256Hex(body).slice(0, 32);
const file = (key: string, contentType: string, body: Buffer, width: number, height: number): MediaFile => ({
  key,
  contentType,
  body,
  etag: hashOf(body),
  width,
  height,
});

/** Checks a logo by content (the photo's rules and errors) and makes its 256 and 64 px PNGs. */
export async function processLogo(bytes: Buffer): Promise<ProcessedMedia> {
  const checked = await checkImage(bytes, LOGO);
  const bodies = await Promise.all(
    LOGO.sizes.map((size) =>
      renderImage(checked, LOGO.what, (input) =>
        input.resize(size, size, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } }).png({ compressionLevel: 9 }),
      ),
    ),
  );
  const id = hashOf(bodies[0]!);
  const files = LOGO.sizes.map((size, i) => file(paths.listingLogo(id, size).slice('/media/'.length), 'image/png', bodies[i]!, size, size));
  return { path: paths.listingLogo(id, 256), files };
}

/** Checks a preview image by content and makes its 1200×630 JPEG (transparency on white). */
export async function processPreview(bytes: Buffer): Promise<ProcessedMedia> {
  const checked = await checkImage(bytes, PREVIEW);
  const body = await renderImage(checked, PREVIEW.what, (input) =>
    input
      .resize(PREVIEW.width, PREVIEW.height, { fit: 'cover', position: 'attention' })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 82, mozjpeg: true }),
  );
  const path = paths.listingImage(hashOf(body));
  return { path, files: [file(path.slice('/media/'.length), 'image/jpeg', body, PREVIEW.width, PREVIEW.height)] };
}

const PROCESS: Record<ListingMediaKind, (bytes: Buffer) => Promise<ProcessedMedia>> = { logo: processLogo, image: processPreview };

/** Processes and stores a logo or preview image; the `/media/...` path to keep. */
export async function storeListingMedia(media: MediaStore, kind: ListingMediaKind, bytes: Buffer): Promise<string> {
  const processed = await PROCESS[kind](bytes);
  await media.put(processed.files);
  return processed.path;
}

const COLUMN = { logo: 'logo_url', image: 'image_url' } as const;

/**
 * Replaces (bytes) or removes (null) the logo or preview image of one of the owner's listings;
 * another owner's listing is "not found", and a refused image leaves the old one in place.
 */
export async function setListingMedia(
  db: Db,
  media: MediaStore,
  ownerId: number,
  listingId: number,
  kind: ListingMediaKind,
  bytes: Buffer | null,
) {
  await getOwnedListing(db, ownerId, listingId);
  const path = bytes === null ? null : await storeListingMedia(media, kind, bytes);
  await db('listings')
    .where({ id: listingId, owner_id: ownerId })
    .update({ [COLUMN[kind]]: path, updated_at: db.fn.now() });
}
