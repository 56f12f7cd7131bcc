import { z } from 'zod';
import { decodeImageBase64, IMAGE_LIMITS, imageTooLarge } from '../domain/media/images.ts';
import { LOGO, PREVIEW, setListingMedia, type ListingMediaKind } from '../domain/media/listing-media.ts';
import { getOwnedListing } from '../domain/listings/listings.ts';
import { ownerListingView } from '../domain/listings/listing-views.ts';
import { OwnerListingView } from './listing-edit-schemas.ts';
import { callerId, defineOperation, type OperationContext } from './operation.ts';
import { Id, ImageBase64 } from './schemas.ts';

/** Uploading and removing a listing's logo and preview image (the founder photo's rules and errors). */

const MB = IMAGE_LIMITS.maxBytes / 1024 / 1024;
const CHECKS =
  `The image type and size are checked by content, not by name or claimed type: JPEG, PNG, WebP, GIF or AVIF, at most ${MB} MB ` +
  `(413 image_too_large), at most ${IMAGE_LIMITS.maxPixels / 1e6} megapixels`;

const WHAT: Record<ListingMediaKind, string> = { logo: LOGO.what, image: PREVIEW.what };

async function replaced(ctx: OperationContext, listingId: number, kind: ListingMediaKind, bytes: Buffer | null) {
  await setListingMedia(ctx.db, ctx.media, callerId(ctx), listingId, kind, bytes);
  return ownerListingView(ctx.db, ctx.caches.sites, await getOwnedListing(ctx.db, callerId(ctx), listingId), ctx.config.baseUrl);
}

const upload = (kind: ListingMediaKind, o: { name: string; summary: string; description: string }) =>
  defineOperation({
    ...o,
    method: 'PUT',
    path: `/me/listings/{listing_id}/${kind}`,
    bodyLimit: { bytes: IMAGE_LIMITS.maxJsonBytes, tooLarge: () => imageTooLarge(WHAT[kind]) },
    scope: 'listings:write',
    idempotent: true,
    errorCodes: ['unsupported_image', 'image_too_many_pixels', 'image_too_small'],
    readOnly: false,
    destructive: true,
    tags: ['my listings'],
    input: z.object({ listing_id: Id, image_base64: ImageBase64 }).strict(),
    output: OwnerListingView,
    handler: (input, ctx) => replaced(ctx, input.listing_id, kind, decodeImageBase64(input.image_base64, WHAT[kind])),
  });

const remove = (kind: ListingMediaKind, o: { name: string; summary: string; description: string }) =>
  defineOperation({
    ...o,
    method: 'DELETE',
    path: `/me/listings/{listing_id}/${kind}`,
    scope: 'listings:write',
    idempotent: true,
    readOnly: false,
    destructive: true,
    tags: ['my listings'],
    input: z.object({ listing_id: Id }).strict(),
    output: OwnerListingView,
    handler: (input, ctx) => replaced(ctx, input.listing_id, kind, null),
  });

export const uploadListingLogoOp = upload('logo', {
  name: 'upload_listing_logo',
  summary: "Upload your listing's logo",
  description:
    `${CHECKS}, at least ${LOGO.minSide} px a side; anything else is 400 unsupported_image. ` +
    `Kept whole on a transparent square and stored as ${LOGO.sizes.map((s) => `${s}×${s}`).join(' and ')} PNGs without metadata, replacing the logo the crawl found or an earlier upload; ` +
    '`logo_url` then points at the 256 px one.',
});

export const uploadListingImageOp = upload('image', {
  name: 'upload_listing_image',
  summary: "Upload your listing's preview image",
  description:
    `${CHECKS}, at least ${PREVIEW.minSide} px a side; anything else is 400 unsupported_image. ` +
    `Cropped to fill ${PREVIEW.width}×${PREVIEW.height} (link previews) and stored as a JPEG without metadata, replacing the earlier image; ` +
    '`image_url` then points at it.',
});

export const deleteListingLogoOp = remove('logo', {
  name: 'delete_listing_logo',
  summary: "Remove your listing's logo",
  description: 'The listing shows no logo until you upload one (upload_listing_logo).',
});

export const deleteListingImageOp = remove('image', {
  name: 'delete_listing_image',
  summary: "Remove your listing's preview image",
  description: 'Link previews then use the generated card image (card_image_url) until you upload one (upload_listing_image).',
});

export const listingMediaOperations = [uploadListingLogoOp, uploadListingImageOp, deleteListingLogoOp, deleteListingImageOp];
