import type { Layer } from '@koa/router';
import type { Context, Next } from 'koa';
import { methodNotAllowed } from '../../errors.ts';

/**
 * Instead of @koa/router's `allowedMethods`: a path that exists under other methods answers
 * OPTIONS with `Allow`, and any other method, also ones the router does not know (TRACE,
 * PROPFIND), with a 405 problem carrying `Allow`. The router's own version throws 501 for
 * unknown methods (which became a 500) and a 405 without `Allow`.
 */
export function allowedMethods() {
  return async function answerOtherMethods(ctx: Context, next: Next) {
    await next();
    const matched = (ctx as Context & { matched?: Layer[] }).matched ?? [];
    if (ctx.status !== 404 || ctx.body !== undefined || matched.length === 0) return;
    const allowed = [...new Set(matched.flatMap((layer) => layer.methods))];
    if (allowed.length === 0 || allowed.includes(ctx.method)) return;
    allowed.push('OPTIONS');
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      ctx.set('Allow', allowed.join(', '));
      return;
    }
    throw methodNotAllowed(ctx.method, allowed);
  };
}
