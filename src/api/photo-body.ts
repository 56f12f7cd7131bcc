import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware, Next } from 'koa';
import { AppError } from '../errors.ts';

/** Path of upload_founder_photo, the one JSON body that carries an image. */
const PHOTO_PATH = '/api/v1/me/founder-profile/photo';

/** 5 MB of image is about 6.7 MB of base64; a little room for a data: prefix and line breaks. */
const parsePhotoJson = bodyParser({
  enableTypes: ['json'],
  jsonLimit: '8mb',
  onError: (err) => {
    if ((err as { status?: number }).status === 413) {
      throw new AppError(413, 'image_too_large', 'Image too large', 'The photo is larger than 5 MB.');
    }
    throw new AppError(400, 'invalid_json', 'Invalid JSON', 'The request body is not valid JSON.');
  },
});

/** The app's JSON body parser, with a larger limit for the photo upload only. */
export function withPhotoBodyLimit(parseJson: Middleware): Middleware {
  return function parseBody(ctx: Context, next: Next) {
    return ctx.path === PHOTO_PATH ? parsePhotoJson(ctx, next) : parseJson(ctx, next);
  };
}
