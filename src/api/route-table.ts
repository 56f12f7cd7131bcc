import type { Context, Next } from 'koa';
import { methodNotAllowed } from '../errors.ts';

export type RouteHandler = (ctx: Context, params: Readonly<Record<string, string>>) => Promise<void> | void;

interface Route {
  /** GET routes answer HEAD too (Koa sends no body). */
  methods: readonly string[];
  /** Lower case, no trailing slash: compared as it is when the path has no parameters. */
  exact: string;
  /** For paths with `{parameters}`: one capture per name, in order. */
  pattern: RegExp | null;
  names: string[];
  handler: RouteHandler;
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The REST API's routes, matched as @koa/router matched them (in the order added, case-insensitive,
 * one optional trailing slash, parameters percent-decoded) without its per-request work (a
 * middleware chain composed for every request), except that a path named outright is not also
 * matched by a `{parameter}` route added after it. A path served under other methods answers
 * OPTIONS with `Allow`, and any other method — also ones no route knows, like TRACE or PROPFIND —
 * a 405 problem carrying `Allow`.
 */
export class RouteTable {
  readonly #routes: Route[] = [];

  /** `path` is the whole path, with `{name}` for a parameter. */
  add(method: string, path: string, handler: RouteHandler): void {
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const pattern = names.length
      ? new RegExp(
          `^${path
            .split(/\{\w+\}/)
            .map(escapeRegExp)
            .join('([^/]+?)')}/?$`,
          'i',
        )
      : null;
    const methods = method === 'GET' ? ['HEAD', 'GET'] : [method];
    this.#routes.push({ methods, exact: withoutTrailingSlash(path).toLowerCase(), pattern, names, handler });
  }

  /** Serves the request when a route has its path; other paths go on to `next`. */
  middleware() {
    return async (ctx: Context, next: Next): Promise<void> => {
      const path = ctx.path;
      const exact = withoutTrailingSlash(path).toLowerCase();
      let allowed: string[] | undefined;
      let named = false;
      for (const route of this.#routes) {
        // A path a route names outright is that route's resource: a later `{parameter}` route
        // does not also claim it (GET /orders/{number} is no method of /orders/quote).
        if (named && route.pattern) continue;
        const params = matchRoute(route, path, exact);
        if (!params) continue;
        named ||= !route.pattern;
        if (route.methods.includes(ctx.method)) return route.handler(ctx, params);
        (allowed ??= []).push(...route.methods);
      }
      if (!allowed) return next();
      allowed = [...new Set(allowed), 'OPTIONS'];
      if (ctx.method !== 'OPTIONS') throw methodNotAllowed(ctx.method, allowed);
      ctx.status = 204;
      ctx.set('Allow', allowed.join(', '));
    };
  }
}

function matchRoute(route: Route, path: string, exact: string): Readonly<Record<string, string>> | null {
  if (!route.pattern) return route.exact === exact ? NO_PARAMS : null;
  const captures = route.pattern.exec(path);
  if (!captures) return null;
  const params: Record<string, string> = {};
  for (const [i, name] of route.names.entries()) params[name] = decodeSegment(captures[i + 1]!);
  return params;
}

/** A segment that is not valid percent-encoding stays as sent (the operation's schema refuses it). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const withoutTrailingSlash = (path: string) => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
