import type { Context, Middleware, Next } from 'koa';
import compose from 'koa-compose';
import { methodNotAllowed } from '../errors/errors.ts';

/** The request a route runs for: Koa's context plus the path's parameters, percent-decoded. */
export type RouteContext = Context & { params: Readonly<Record<string, string>> };

/** A route's handler or one of its middleware (Koa middleware that may read `ctx.params`). */
export type RouteHandler = (ctx: RouteContext, next: Next) => unknown;

/** `ALL` answers every method (a mounted app such as the OAuth provider or MCP answers its own 405s). */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'ALL';

interface Route {
  /** GET routes answer HEAD too (Koa sends no body); null for ALL. */
  methods: readonly string[] | null;
  /** Lower case, no trailing slash: compared as it is when the path has no parameters. */
  exact: string;
  /** The lower-case text before the first parameter: a cheap test before the pattern runs. */
  prefix: string;
  /** For paths with `{parameters}` or a trailing `*`: one capture per name, in order. */
  pattern: RegExp | null;
  names: string[];
  scope: RouteScope;
  /** The scope's middleware, then the route's handlers, composed once. */
  run: Middleware;
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});
const noop = async () => {};

/**
 * The one router of the app: REST, MCP, OAuth, health, media, webhooks and the pages are routes of
 * one table, each in a scope that carries what its transport needs in front of it (bearer auth for
 * REST; security headers, HTML errors, form readers and CSRF for pages). Matching: in the order
 * added, case-insensitive, one optional trailing slash, `{name}` parameters percent-decoded, a
 * trailing `/*` for a subtree handed to another app; a path named outright is not also matched by a
 * `{parameter}` route added after it. A path served under other methods answers OPTIONS with
 * `Allow`, and any other method a 405 carrying `Allow`, raised inside its scope (so a page's 405 is
 * an HTML page and an API's a problem).
 */
export class Router {
  readonly #routes: Route[] = [];

  /** Routes added to a scope run behind its middleware, in this order. */
  scope(middleware: readonly Middleware[] = []): RouteScope {
    return new RouteScope(this.#routes, middleware);
  }

  /** Serves the request when a route has its path; other paths go on to `next`. */
  middleware(): Middleware {
    const routes = this.#routes;
    return async function route(ctx: Context, next: Next): Promise<void> {
      const path = ctx.path;
      const exact = withoutTrailingSlash(path).toLowerCase();
      let allowed: string[] | undefined;
      let scope: RouteScope | undefined;
      let named = false;
      for (const route of routes) {
        // A path a route names outright is that route's resource: a later `{parameter}` route
        // does not also claim it (GET /orders/{number} is no method of /orders/quote).
        if (named && route.pattern) continue;
        if (!exact.startsWith(route.prefix)) continue;
        const params = matchRoute(route, path, exact);
        if (!params) continue;
        named ||= !route.pattern;
        if (!route.methods || route.methods.includes(ctx.method)) {
          (ctx as RouteContext).params = params;
          return route.run(ctx, noop);
        }
        (allowed ??= []).push(...route.methods);
        scope ??= route.scope;
      }
      if (!allowed || !scope) return next();
      const allow = [...new Set(allowed), 'OPTIONS'];
      await scope.handle(ctx, async function answerMethods(ctx) {
        if (ctx.method !== 'OPTIONS') throw methodNotAllowed(ctx.method, allow);
        ctx.status = 204;
        ctx.set('Allow', allow.join(', '));
      });
    };
  }
}

/** Routes that share the middleware in front of them; registered on the router that made the scope. */
export class RouteScope {
  readonly #routes: Route[];
  readonly #middleware: readonly Middleware[];

  constructor(routes: Route[], middleware: readonly Middleware[]) {
    this.#routes = routes;
    this.#middleware = middleware;
  }

  /** `path` is the whole path, with `{name}` for a parameter, or ending in `/*` for a subtree. */
  add(method: RouteMethod, path: string, ...handlers: RouteHandler[]): void {
    if (/:\w/.test(path)) throw new Error(`Route ${path}: parameters are written {name}, not :name.`);
    const subtree = path.endsWith('/*');
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const body = subtree ? path.slice(0, -2) : path;
    const pattern =
      names.length || subtree
        ? new RegExp(
            `^${body
              .split(/\{\w+\}/)
              .map(escapeRegExp)
              .join('([^/]+?)')}${subtree ? '/.*' : '/?'}$`,
            'i',
          )
        : null;
    const exact = withoutTrailingSlash(body).toLowerCase();
    this.#routes.push({
      methods: method === 'ALL' ? null : method === 'GET' ? ['HEAD', 'GET'] : [method],
      exact,
      prefix: exact.split('{')[0]!,
      pattern,
      names,
      scope: this,
      run: compose([...this.#middleware, ...(handlers as Middleware[])]),
    });
  }

  get(path: string, ...handlers: RouteHandler[]): void {
    this.add('GET', path, ...handlers);
  }

  post(path: string, ...handlers: RouteHandler[]): void {
    this.add('POST', path, ...handlers);
  }

  put(path: string, ...handlers: RouteHandler[]): void {
    this.add('PUT', path, ...handlers);
  }

  delete(path: string, ...handlers: RouteHandler[]): void {
    this.add('DELETE', path, ...handlers);
  }

  /** Runs `handler` behind this scope's middleware: its 405s, and its answer to a path no route has. */
  handle(ctx: Context, handler: Middleware): Promise<void> {
    return compose([...this.#middleware, handler])(ctx, noop);
  }
}

function matchRoute(route: Route, path: string, exact: string): Readonly<Record<string, string>> | null {
  if (!route.pattern) return route.exact === exact ? NO_PARAMS : null;
  const captures = route.pattern.exec(path);
  if (!captures) return null;
  if (!route.names.length) return NO_PARAMS;
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
