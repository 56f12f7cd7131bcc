import { sha256Hex } from '../../hash.ts';
import sharp, { type Metadata } from 'sharp';
import type { Db } from '../../db/knex.ts';
import { badRequest, invalidField, payloadTooLarge } from '../../errors.ts';
import { ensureFounderProfile } from './profiles.ts';

/** Limits of an uploaded founder photo. */
export const PHOTO_LIMITS = {
  /** Decoded upload size. */
  maxBytes: 5 * 1024 * 1024,
  /** Pixel-bomb guard: a small file can claim huge dimensions; refused before decoding. */
  maxPixels: 40_000_000,
  /** Below this a face is not recognisable at the stored size. */
  minSide: 64,
  /** Stored as a square WebP of this side. */
  outputSide: 512,
  /** A JSON body carrying the photo: 5 MB is about 6.7 MB of base64, plus room for a data: prefix and line breaks. */
  maxJsonBytes: 8 * 1024 * 1024,
} as const;

export type PhotoFormat = 'jpeg' | 'png' | 'webp' | 'gif' | 'avif';

export interface ProcessedPhoto {
  image: Buffer;
  etag: string;
  width: number;
  height: number;
  sourceFormat: PhotoFormat;
  sourceBytes: number;
}

const unsupported = (detail: string) => badRequest('unsupported_image', detail);
const ACCEPTED_TEXT = 'Send a JPEG, PNG, WebP, GIF or AVIF photo.';

const B64 = String.raw`\s*[A-Za-z0-9+/]`;
const PAD = String.raw`\s*=`;
/**
 * The strings decodeImageBase64 takes, as one pattern for the OpenAPI document: an optional data:
 * prefix, then base64 whose length without whitespace is not 1 modulo 4, padded with at most two `=`.
 */
export const IMAGE_BASE64_PATTERN = new RegExp(
  String.raw`^(?:data:[^,]{0,100},)?(?:(?:${B64}){4})*` +
    `(?:${B64}${B64}${B64}(?:${B64}|${PAD})|${B64}${B64}${PAD}${PAD}|${B64}${B64}(?:${B64}|${PAD})?|${B64}${PAD}(?:${PAD})?|${PAD}${PAD})?` +
    String.raw`\s*$`,
);

const base64Of = (value: string) => value.replace(/^data:[^,]{0,100},/, '').replace(/\s+/g, '');
const isBase64 = (base64: string) => /^[A-Za-z0-9+/]*={0,2}$/.test(base64) && base64.length % 4 !== 1;

/**
 * What IMAGE_BASE64_PATTERN says, checked in linear time: the pattern itself is for the OpenAPI
 * document only, since backtracking it over a multi-megabyte upload overflows the regex stack.
 */
export const isImageBase64 = (value: string) => isBase64(base64Of(value));

/** Bytes of an `image_base64` value; a `data:` URL prefix is allowed and its claimed type ignored. */
export function decodeImageBase64(value: string): Buffer {
  const base64 = base64Of(value);
  if (!isBase64(base64)) {
    throw invalidField('image_base64', 'Must be base64 (optionally a data: URL)', 'image_base64 is not valid base64.');
  }
  // Checked on the encoded length first, so an oversized upload is never decoded.
  if (Math.floor((base64.length * 3) / 4) - (base64.match(/=+$/)?.[0].length ?? 0) > PHOTO_LIMITS.maxBytes) {
    throw photoTooLarge();
  }
  return Buffer.from(base64, 'base64');
}

export const photoTooLarge = () => payloadTooLarge(PHOTO_LIMITS.maxBytes, 'image_too_large', 'The photo');

/** The image type from its first bytes (magic numbers), whatever name or type the upload claimed. */
export function sniffImageFormat(bytes: Buffer): PhotoFormat | null {
  const ascii = (from: number, to: number) => bytes.subarray(from, to).toString('latin1');
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return 'gif';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  if (ascii(4, 8) === 'ftyp') {
    // ISO BMFF: major brand, minor version, then compatible brands up to the box size.
    const boxSize = Math.min(bytes.readUInt32BE(0), bytes.length, 256);
    const brands = [ascii(8, 12)];
    for (let at = 16; at + 4 <= boxSize; at += 4) brands.push(ascii(at, at + 4));
    if (brands.includes('avif') || brands.includes('avis')) return 'avif';
  }
  return null;
}

/**
 * Checks a photo by its content and makes the stored version: oriented, cropped to a square
 * around the most interesting part, 512×512 WebP without metadata (no GPS or camera data kept).
 */
export async function processPhoto(bytes: Buffer): Promise<ProcessedPhoto> {
  if (bytes.length > PHOTO_LIMITS.maxBytes) throw photoTooLarge();
  const format = sniffImageFormat(bytes);
  if (!format) throw unsupported(`The upload is not an image we accept. ${ACCEPTED_TEXT}`);
  const options = { limitInputPixels: PHOTO_LIMITS.maxPixels, failOn: 'error', pages: 1 } as const;
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { ...options, limitInputPixels: false }).metadata();
  } catch {
    throw unsupported(`The image could not be read. ${ACCEPTED_TEXT}`);
  }
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  if (width * height > PHOTO_LIMITS.maxPixels) {
    throw badRequest(
      'image_too_many_pixels',
      `The image is ${width}×${height} pixels; at most ${PHOTO_LIMITS.maxPixels / 1e6} megapixels are accepted.`,
    );
  }
  if (Math.min(width, height) < PHOTO_LIMITS.minSide) {
    throw badRequest('image_too_small', `The image is ${width}×${height} pixels; each side needs at least ${PHOTO_LIMITS.minSide}.`);
  }
  let image: Buffer;
  try {
    image = await sharp(bytes, options)
      .rotate()
      .resize(PHOTO_LIMITS.outputSide, PHOTO_LIMITS.outputSide, { fit: 'cover', position: sharp.strategy.attention })
      .webp({ quality: 82 })
      .toBuffer();
  } catch {
    throw unsupported(`The image is damaged or incomplete. ${ACCEPTED_TEXT}`);
  }
  const etag = sha256Hex(image).slice(0, 16);
  return { image, etag, width: PHOTO_LIMITS.outputSide, height: PHOTO_LIMITS.outputSide, sourceFormat: format, sourceBytes: bytes.length };
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
