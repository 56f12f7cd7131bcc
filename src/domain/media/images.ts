import type { Metadata, Sharp } from 'sharp';
import { loadSharp } from '../../lib/sharp.ts';
import { badRequest, invalidField, payloadTooLarge } from '../../errors/errors.ts';

/**
 * THE image check of the service: founder photos, listing logos and preview images, uploaded or
 * fetched from an owner's site, are all read here, by content (never by name or claimed type).
 */
export const IMAGE_LIMITS = {
  /** Decoded upload size. */
  maxBytes: 5 * 1024 * 1024,
  /** Pixel-bomb guard: a small file can claim huge dimensions; refused before decoding. */
  maxPixels: 40_000_000,
  /** A JSON body carrying an image: 5 MB is about 6.7 MB of base64, plus room for a data: prefix and line breaks. */
  maxJsonBytes: 8 * 1024 * 1024,
} as const;

export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'gif' | 'avif';

/** What the sentences of refusals say, e.g. "Send a JPEG, … photo." */
export const ACCEPTED_FORMATS_TEXT = 'JPEG, PNG, WebP, GIF or AVIF';

/** An image that passed the checks: its bytes, type and size. */
export interface CheckedImage {
  bytes: Buffer;
  format: ImageFormat;
  width: number;
  height: number;
}

/** sharp's input options for a checked image: the pixel limit, strict decoding, the first frame. */
export const SHARP_INPUT = { limitInputPixels: IMAGE_LIMITS.maxPixels, failOn: 'error', pages: 1 } as const;

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

/** 413 image_too_large; `what` names the image ("The photo", "The logo"). */
export const imageTooLarge = (what: string) => payloadTooLarge(IMAGE_LIMITS.maxBytes, 'image_too_large', what);

/** Bytes of an `image_base64` value; a `data:` URL prefix is allowed and its claimed type ignored. */
export function decodeImageBase64(value: string, what: string): Buffer {
  const base64 = base64Of(value);
  if (!isBase64(base64)) {
    throw invalidField('image_base64', 'Must be base64 (optionally a data: URL)', 'image_base64 is not valid base64.');
  }
  // Checked on the encoded length first, so an oversized upload is never decoded.
  if (Math.floor((base64.length * 3) / 4) - (base64.match(/=+$/)?.[0].length ?? 0) > IMAGE_LIMITS.maxBytes) {
    throw imageTooLarge(what);
  }
  return Buffer.from(base64, 'base64');
}

/** The image type from its first bytes (magic numbers), whatever name or type the upload claimed. */
export function sniffImageFormat(bytes: Buffer): ImageFormat | null {
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

/** 400 unsupported_image with the sentence and what is accepted. */
export const unsupportedImage = (detail: string, what: string) =>
  badRequest('unsupported_image', `${detail} Send a ${ACCEPTED_FORMATS_TEXT} ${what.replace(/^The /, '').toLowerCase()}.`);

/**
 * Checks an image by its content: size, type (magic numbers), readable header, pixel count and
 * smallest side. The errors are the ones every image upload answers with: 413 image_too_large,
 * 400 unsupported_image, image_too_many_pixels, image_too_small. `what` names it ("The photo").
 */
export async function checkImage(bytes: Buffer, rules: { minSide: number; what: string }): Promise<CheckedImage> {
  const { what } = rules;
  if (bytes.length > IMAGE_LIMITS.maxBytes) throw imageTooLarge(what);
  const format = sniffImageFormat(bytes);
  if (!format) throw unsupportedImage('The upload is not an image we accept.', what);
  const sharp = loadSharp();
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { ...SHARP_INPUT, limitInputPixels: false }).metadata();
  } catch {
    throw unsupportedImage('The image could not be read.', what);
  }
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  if (width * height > IMAGE_LIMITS.maxPixels) {
    throw badRequest(
      'image_too_many_pixels',
      `The image is ${width}×${height} pixels; at most ${IMAGE_LIMITS.maxPixels / 1e6} megapixels are accepted.`,
    );
  }
  if (Math.min(width, height) < rules.minSide) {
    throw badRequest('image_too_small', `The image is ${width}×${height} pixels; each side needs at least ${rules.minSide}.`);
  }
  return { bytes, format, width, height };
}

/**
 * Runs sharp over a checked image (`pipeline` resizes and encodes); a file whose header read but
 * whose pixels do not (damaged, cut short) is 400 unsupported_image.
 */
export async function renderImage(image: CheckedImage, what: string, pipeline: (input: Sharp) => Sharp): Promise<Buffer> {
  const sharp = loadSharp();
  try {
    return await pipeline(sharp(image.bytes, SHARP_INPUT).rotate()).toBuffer();
  } catch {
    throw unsupportedImage('The image is damaged or incomplete.', what);
  }
}
