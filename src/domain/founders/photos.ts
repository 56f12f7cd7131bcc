import { sha256Hex } from '../../lib/hash.ts';
import { loadSharp } from '../../lib/sharp.ts';
import type { Db } from '../../db/knex.ts';
import { checkImage, IMAGE_LIMITS, imageTooLarge, renderImage, type ImageFormat } from '../media/images.ts';
import { ensureFounderProfile } from './profiles.ts';

/** Limits of an uploaded founder photo (the size and pixel limits are every image's, src/domain/media/images.ts). */
export const PHOTO_LIMITS = {
  ...IMAGE_LIMITS,
  /** Below this a face is not recognisable at the stored size. */
  minSide: 64,
  /** Stored as a square WebP of this side. */
  outputSide: 512,
} as const;

/** How refusals name it: "The photo is larger than 5 MB." */
export const PHOTO = 'The photo';

export interface ProcessedPhoto {
  image: Buffer;
  etag: string;
  width: number;
  height: number;
  sourceFormat: ImageFormat;
  sourceBytes: number;
}

export const photoTooLarge = () => imageTooLarge(PHOTO);

/**
 * Checks a photo by its content and makes the stored version: oriented, cropped to a square
 * around the most interesting part, 512×512 WebP without metadata (no GPS or camera data kept).
 */
export async function processPhoto(bytes: Buffer): Promise<ProcessedPhoto> {
  const checked = await checkImage(bytes, { minSide: PHOTO_LIMITS.minSide, what: PHOTO });
  const side = PHOTO_LIMITS.outputSide;
  const image = await renderImage(checked, PHOTO, (input) =>
    input.resize(side, side, { fit: 'cover', position: loadSharp().strategy.attention }).webp({ quality: 82 }),
  );
  const etag = sha256Hex(image).slice(0, 16);
  return { image, etag, width: side, height: side, sourceFormat: checked.format, sourceBytes: bytes.length };
}

/** Stores (or replaces) a user's photo in PostgreSQL, so every api process can serve it. */
export async function saveFounderPhoto(db: Db, userId: number, photo: ProcessedPhoto): Promise<void> {
  await db.transaction(async (trx) => {
    await ensureFounderProfile(trx, userId);
    const row = {
      user_id: userId,
      image: photo.image,
      etag: photo.etag,
      width: photo.width,
      height: photo.height,
      source_format: photo.sourceFormat,
      source_bytes: photo.sourceBytes,
      updated_at: trx.fn.now(),
    };
    await trx('founder_photos').insert(row).onConflict('user_id').merge();
    await trx('founder_profiles').where({ user_id: userId }).update({ updated_at: trx.fn.now() });
  });
}

/** A stored photo for the media route, or null. */
export async function loadFounderPhoto(db: Db, userId: number): Promise<{ image: Buffer; etag: string; updated_at: Date } | null> {
  return (await db('founder_photos').where({ user_id: userId }).first('image', 'etag', 'updated_at')) ?? null;
}
