import { mediaPath } from '../browse-components.ts';
import type { Context } from 'koa';
import type { z } from 'zod';
import { payloadTooLarge } from '../../errors/errors.ts';
import { deleteListingImageOp, deleteListingLogoOp, uploadListingImageOp, uploadListingLogoOp } from '../../operations/listing-media.ts';
import { getMyListingOp } from '../../operations/listings.ts';
import { IMAGE_LIMITS, LOGO, PREVIEW } from '../../operations/read-models/media.ts';
import { parseId } from '../../operations/schemas.ts';
import { paths, smallLogoUrl } from '../../lib/paths.ts';
import { errorSummary, postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { redirectWithFlash, takeFlash } from '../flash.ts';
import type { FieldMessages } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage } from '../invoke.ts';
import type { UploadRoute } from '../multipart.ts';
import { refusal } from '../owner-forms.ts';
import { renderPage } from '../render.ts';
import { requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';

type Kind = 'logo' | 'image';
type OwnerListing = z.output<typeof getMyListingOp.output>;

const KINDS: Kind[] = ['logo', 'image'];
const UPLOAD = { logo: uploadListingLogoOp, image: uploadListingImageOp } as const;
const REMOVE = { logo: deleteListingLogoOp, image: deleteListingImageOp } as const;
const NAMES: Record<Kind, string> = { logo: 'logo', image: 'preview image' };
const NOTICES: Record<string, string> = {
  'logo-saved': 'Your logo is saved.',
  'image-saved': 'Your preview image is saved.',
  'logo-removed': 'Your logo is removed.',
  'image-removed': 'Your preview image is removed.',
};

const uploadPath = (listingId: number, kind: Kind) => `${paths.listingImages(listingId)}/${kind}`;
const UPLOAD_PATH = /^\/account\/listings\/(\d{1,15})\/images\/(logo|image)$/;

const sameOrigin = (url: string) => mediaPath(url) ?? '';

/**
 * The two upload forms are multipart; the router parses them with this limit (the image plus the
 * form around it). Too large an image goes back to the form with the message, like any refused one.
 */
export const listingMediaUploads =
  (services: WebServices) =>
  (path: string): UploadRoute | undefined => {
    const match = UPLOAD_PATH.exec(path);
    if (!match) return undefined;
    const [, id, kind] = match as unknown as [string, string, Kind];
    const tooLarge = payloadTooLarge(IMAGE_LIMITS.maxBytes, 'image_too_large', kind === 'logo' ? LOGO.what : PREVIEW.what);
    return {
      maxBytes: IMAGE_LIMITS.maxBytes + 64 * 1024,
      tooLarge,
      onTooLarge: (ctx, error) => refused(ctx, services, Number(id), kind, { [kind]: error.message }),
    };
  };

/** A refused upload: back to the page (never left on the POST URL) with the message beside the field. */
const refused = (ctx: Context, services: WebServices, listingId: number, kind: Kind, errors: FieldMessages) =>
  redirectWithFlash(ctx, services, `${paths.listingImages(listingId)}#${kind}`, { form: kind, errors });

/** `/account/listings/{id}/images`: the owner replaces or removes the listing's logo and preview image. */
export const listingMediaPages: PageRoutes = (router, services) => {
  router.get('/account/listings/{id}/images', requireUser(services), async function showListingImages(ctx) {
    const listing = await ownListing(ctx, services);
    const flash = takeFlash(ctx, services);
    const token = await csrfToken(ctx, services);
    const notice = typeof ctx.query.notice === 'string' ? NOTICES[ctx.query.notice] : undefined;
    await renderPage(ctx, services, {
      title: `Logo and preview image of ${listing.name}`,
      notice,
      main: html`<p><a href="/account/listings">Your listings</a></p>
${listingImagesSection(listing, token, flash && { form: flash.form as Kind, errors: flash.errors })}`,
    });
  });

  for (const kind of KINDS) {
    router.post(`/account/listings/{id}/images/${kind}`, requireUser(services), async function uploadListingMedia(ctx) {
      const listing = await ownListing(ctx, services);
      const upload = ctx.state.uploads?.get(kind);
      if (!upload?.bytes.length) return refused(ctx, services, listing.id, kind, { [kind]: `Choose an image for the ${NAMES[kind]}.` });
      try {
        // The form's file is the API's image_base64: the same checks by content (type, size, pixels).
        await invokeForPage(ctx, services, UPLOAD[kind], { listing_id: listing.id, image_base64: upload.bytes.toString('base64') });
      } catch (err) {
        return refused(ctx, services, listing.id, kind, refusal(err, kind).errors);
      }
      seeOther(ctx, listing.id, `${kind}-saved`, kind);
    });
    router.post(`/account/listings/{id}/images/${kind}/remove`, requireUser(services), async function removeListingMedia(ctx) {
      const listing = await ownListing(ctx, services);
      await invokeForPage(ctx, services, REMOVE[kind], { listing_id: listing.id });
      seeOther(ctx, listing.id, `${kind}-removed`, kind);
    });
  }
};

/** The signed-in owner's listing of `:id`; another owner's (or no) listing is the 404 page. */
async function ownListing(ctx: Context, services: WebServices): Promise<OwnerListing> {
  const id = parseId(ctx.params.id);
  return invokeForPage(ctx, services, getMyListingOp, { listing_id: id ?? 0 });
}

function seeOther(ctx: Context, listingId: number, notice: string, hash: Kind) {
  ctx.status = 303;
  ctx.redirect(`${paths.listingImages(listingId)}?notice=${notice}#${hash}`);
}

/**
 * The logo and preview image forms of one listing, as a section any owner page can include (the
 * listing's edit page too): what is shown now, an upload form each, and a remove button.
 * `refused` is the form that was refused and its messages (from the flash of the images page).
 */
export function listingImagesSection(
  listing: Pick<OwnerListing, 'id' | 'name' | 'logo_url' | 'image_url' | 'card_image_url'>,
  token: string,
  refused?: { form: Kind; errors: FieldMessages },
): SafeHtml {
  const errorsOf = (kind: Kind) => (refused?.form === kind ? refused.errors : undefined);
  const logo = listing.logo_url
    ? html`<p><img src="${sameOrigin(listing.logo_url)}" width="128" height="128" alt="Logo of ${listing.name}">
<img src="${smallLogoUrl(sameOrigin(listing.logo_url))}" width="32" height="32" alt="The same logo, small"></p>`
    : html`<p>No logo yet.</p>`;
  const image = listing.image_url
    ? html`<p><img class="preview-image" src="${sameOrigin(listing.image_url)}" width="600" height="315" alt="Preview image of ${listing.name}"></p>`
    : html`<p>No preview image yet: link previews show this generated card instead.</p>
<p><img class="preview-image" src="${sameOrigin(listing.card_image_url)}" width="600" height="315" alt="Generated card of ${listing.name}"></p>`;
  return html`<section class="listing-images" aria-labelledby="logo">
<h2 id="logo">Logo</h2>
${errorSummary(errorsOf('logo'))}
${logo}
${uploadForm(listing, 'logo', token, `Square works best; at least ${LOGO.minSide} pixels a side. We keep it whole on a transparent square.`, errorsOf('logo'))}
<h2 id="image">Preview image</h2>
${errorSummary(errorsOf('image'))}
${image}
${uploadForm(listing, 'image', token, `Shown when someone shares your listing: at least ${PREVIEW.minSide} pixels a side, best ${PREVIEW.width}×${PREVIEW.height}. We crop it to that shape.`, errorsOf('image'))}
<aside class="muted"><h3>For developers</h3><p>The same with <code>upload_listing_logo</code> and <code>upload_listing_image</code> (<code>PUT /api/v1/me/listings/${listing.id}/logo</code>, <code>/image</code>).</p></aside>
</section>`;
}

function uploadForm(
  listing: Pick<OwnerListing, 'id' | 'logo_url' | 'image_url'>,
  kind: Kind,
  token: string,
  hint: string,
  errors?: FieldMessages,
) {
  const has = kind === 'logo' ? listing.logo_url : listing.image_url;
  const id = `f-${kind}`;
  const limits = `JPEG, PNG, WebP, GIF or AVIF, at most ${IMAGE_LIMITS.maxBytes / 1024 / 1024} MB. ${hint}`;
  return html`<form method="post" action="${uploadPath(listing.id, kind)}" enctype="multipart/form-data">
<input type="hidden" name="_csrf" value="${token}">
<div class="field">
<label for="${id}">${has ? `Replace the ${NAMES[kind]}` : `Your ${NAMES[kind]}`}</label>
<p class="hint" id="${id}-hint">${limits}</p>
${errors?.[kind] && html`<p class="error" id="${id}-error">${errors[kind]}</p>`}
<input id="${id}" name="${kind}" type="file" accept="image/jpeg,image/png,image/webp,image/gif,image/avif" required aria-describedby="${id}-hint${errors?.[kind] ? ` ${id}-error` : ''}"${errors?.[kind] ? html` aria-invalid="true"` : ''}>
</div>
<button type="submit">Upload ${NAMES[kind]}</button>
</form>
${has ? postForm(`${uploadPath(listing.id, kind)}/remove`, token, html`<button type="submit" class="secondary">Remove the ${NAMES[kind]}</button>`) : ''}`;
}
