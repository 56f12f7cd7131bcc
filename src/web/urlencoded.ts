import type { Middleware } from 'koa';
import { appError } from '../errors/errors.ts';
import { readBody } from '../http/read-body.ts';

/** The largest urlencoded form a page takes. */
export const FORM_LIMIT_BYTES = 64 * 1024;

const invalidForm = () => appError('invalid_form', 'Go back, reload the page and try again.');

/**
 * Reads an application/x-www-form-urlencoded body of POST, PUT and PATCH requests through the
 * one body reader (up to FORM_LIMIT_BYTES; a larger or broken form is `invalid_form`) into
 * `ctx.request.body`: flat fields, a repeated name becomes an array (as multipart forms do).
 * A body set before (a multipart form) is left alone.
 */
export function urlencodedForms(): Middleware {
  return async function parseUrlencoded(ctx, next) {
    const request = ctx.request as { body?: unknown };
    if (request.body === undefined && ['POST', 'PUT', 'PATCH'].includes(ctx.method) && ctx.is('application/x-www-form-urlencoded')) {
      const text = (await readBody(ctx.req, FORM_LIMIT_BYTES, invalidForm)).toString('utf8');
      const fields: Record<string, string | string[]> = {};
      for (const [name, value] of new URLSearchParams(text)) {
        const seen = fields[name];
        fields[name] = seen === undefined ? value : [seen].flat().concat(value);
      }
      request.body = fields;
    }
    await next();
  };
}
