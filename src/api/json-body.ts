import type { Context } from 'koa';
import { invalidJson, unsupportedMediaType, validationFailed } from '../errors/errors.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan, tooDeep } from '../http/json-depth.ts';
import { hasRequestBody, readBody } from '../http/read-body.ts';
import type { BodyLimit } from '../operations/operation.ts';

/** application/json and every structured-syntax `+json` type (merge-patch+json, vnd.*+json...). */
const JSON_TYPES = ['application/json', 'application/*+json'];

/** Whether the body is JSON; the common exact type is told without type-is's parsing (it runs on every call). */
function isJson(ctx: Context): boolean {
  const type = ctx.get('Content-Type');
  return type === 'application/json' || type === 'application/json; charset=utf-8' || Boolean(ctx.is(JSON_TYPES));
}

/**
 * The JSON object of a REST request body; no body is `{}`. A body of another media type is a
 * 415, never ignored; a body over the operation's limit is its 413; anything but an object, or
 * an object nested deeper than MAX_JSON_DEPTH, a 400.
 */
export async function readJsonObject(ctx: Context, limit: BodyLimit): Promise<Record<string, unknown>> {
  if (!hasRequestBody(ctx.req)) return {};
  if (!isJson(ctx)) {
    ctx.req.resume();
    const sent = ctx.get('Content-Type') ? `"${ctx.get('Content-Type')}"` : 'no Content-Type';
    throw unsupportedMediaType(
      `Send the body as JSON with Content-Type: application/json (or another +json type); this request has ${sent}.`,
    );
  }
  const text = (await readBody(ctx.req, limit.bytes, limit.tooLarge)).toString('utf8');
  if (!text.trim()) return {};
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw tooDeep();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidJson();
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw validationFailed(
      [{ path: '(body)', message: `Must be a JSON object, not ${got}` }],
      `The request body must be a JSON object, not ${got}.`,
    );
  }
  return value as Record<string, unknown>;
}
