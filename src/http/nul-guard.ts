import type { Context, Next } from 'koa';
import { appError } from '../errors/errors.ts';

/**
 * PostgreSQL's text cannot hold a NUL character, and nothing this service names (paths, slugs,
 * ids, tokens, search words) contains one. One rule at the edge: a URL whose path or query holds
 * a NUL (`%00`) is refused before any route reads it, so no route can forget to.
 */
export async function refuseNulInUrl(ctx: Context, next: Next): Promise<void> {
  if (/%00|\0/i.test(ctx.url)) throw appError('bad_request', 'The address contains a NUL character (%00), which nothing here accepts.');
  await next();
}
