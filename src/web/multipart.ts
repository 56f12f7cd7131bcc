import type { Context, Middleware } from 'koa';
import { appError, type AppError } from '../errors/errors.ts';
import { readBody } from '../http/read-body.ts';

/** One uploaded file of a multipart form. */
export interface Upload {
  filename: string;
  bytes: Buffer;
}

declare module 'koa' {
  interface DefaultState {
    /** Files of a multipart form, by field name (first file per name). */
    uploads?: Map<string, Upload>;
  }
}

/** A route that takes multipart/form-data: the largest body accepted and what to say above it. */
export interface UploadRoute {
  maxBytes: number;
  tooLarge: AppError;
  /** Answers a too-large upload (e.g. a redirect back to the form) instead of an error page. */
  onTooLarge?: (ctx: Context, error: AppError) => void;
}

/**
 * Parses multipart/form-data on the listed POST routes only, with a size limit checked while
 * reading (and before, from Content-Length). Text fields become the request body like a
 * urlencoded form (so the CSRF check reads `_csrf` as usual); files go to `ctx.state.uploads`.
 * Parsing uses the runtime's own FormData parser, so no dependency is needed.
 */
export function multipartForms(
  routes: Record<string, UploadRoute>,
  /** Routes with an id in their path: the upload route of a path, if it is one. */
  match: (path: string) => UploadRoute | undefined = () => undefined,
): Middleware {
  return async function parseMultipart(ctx, next) {
    if (ctx.method !== 'POST') return next();
    const route = Object.hasOwn(routes, ctx.path) ? routes[ctx.path] : match(ctx.path);
    if (!route || !ctx.is('multipart/form-data')) return next();
    let form: FormData;
    try {
      form = await readForm(ctx, route);
    } catch (err) {
      if (err !== route.tooLarge || !route.onTooLarge) throw err;
      return route.onTooLarge(ctx, route.tooLarge);
    }
    const fields: Record<string, string | string[]> = {};
    const uploads = new Map<string, Upload>();
    for (const [name, value] of form) {
      if (typeof value === 'string') {
        const seen = fields[name];
        fields[name] = seen === undefined ? value : [seen].flat().concat(value);
      } else if (!uploads.has(name)) {
        uploads.set(name, { filename: value.name, bytes: Buffer.from(await value.arrayBuffer()) });
      }
    }
    (ctx.request as { body?: unknown }).body = fields;
    ctx.state.uploads = uploads;
    return next();
  };
}

async function readForm(ctx: Context, route: UploadRoute): Promise<FormData> {
  const body = await readBody(ctx.req, route.maxBytes, () => route.tooLarge);
  try {
    return await new Response(new Uint8Array(body), { headers: { 'content-type': ctx.get('content-type') } }).formData();
  } catch {
    throw appError('invalid_form', 'Go back, reload the page and try again.');
  }
}
