import test from 'ava';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { Router, type RouteContext } from '../../src/http/router.ts';
import { AppError } from '../../src/errors/errors.ts';

/** What one request to a router answers over HTTP: the route that ran and its params, or the status and Allow. */
async function dispatch(table: Router, method: string, path: string) {
  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      ctx.status = err.status;
      ctx.set(err.headers ?? {});
    }
  });
  app.use(table.middleware());
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, { method });
    const body = method !== 'HEAD' && res.headers.get('content-type')?.includes('json') ? await res.json() : undefined;
    return { status: res.status, allow: res.headers.get('allow') ?? undefined, ...body };
  } finally {
    server.close();
  }
}

function table(): Router {
  const router = new Router();
  const t = router.scope();
  const route = (name: string) => (ctx: RouteContext) => {
    ctx.body = { ran: name, params: ctx.params };
  };
  t.add('GET', '/api/v1/listings/{listing_id}', route('get listing'));
  t.add('GET', '/api/v1/listings/mine', route('mine'));
  t.add('POST', '/api/v1/listings/{listing_id}/follow', route('follow'));
  t.add('DELETE', '/api/v1/listings/{listing_id}/follow', route('unfollow'));
  t.add('GET', '/api/v1', route('index'));
  return router;
}

test('routes match in the order added, case-insensitive, with one optional trailing slash', async (t) => {
  const routes = table();
  t.like(await dispatch(routes, 'GET', '/api/v1/listings/12'), { ran: 'get listing', params: { listing_id: '12' } });
  // The parameter route was added first, so it takes /listings/mine as it was added first.
  t.like(await dispatch(routes, 'GET', '/api/v1/listings/mine'), { ran: 'get listing', params: { listing_id: 'mine' } });
  t.like(await dispatch(routes, 'GET', '/api/v1/Listings/12/'), { ran: 'get listing', params: { listing_id: '12' } });
  t.like(await dispatch(routes, 'GET', '/api/v1/'), { ran: 'index' });
  t.like(await dispatch(routes, 'GET', '/API/V1'), { ran: 'index' });
  t.like(await dispatch(routes, 'HEAD', '/api/v1/listings/12'), { status: 200 });
});

test('parameters are percent-decoded; a broken escape stays as sent; a slash never ends up in one', async (t) => {
  const routes = table();
  t.like(await dispatch(routes, 'GET', '/api/v1/listings/a%20b'), { params: { listing_id: 'a b' } });
  t.like(await dispatch(routes, 'GET', '/api/v1/listings/%E0%A4%A'), { params: { listing_id: '%E0%A4%A' } });
  t.like(await dispatch(routes, 'GET', '/api/v1/listings/a%2Fb'), { params: { listing_id: 'a/b' } });
  t.is((await dispatch(routes, 'GET', '/api/v1/listings/1/2/3')).status, 404);
  t.is((await dispatch(routes, 'GET', '/api/v1/listingsx')).status, 404);
});

test('a path served under other methods: OPTIONS lists them, anything else is a 405 with Allow', async (t) => {
  const routes = table();
  t.like(await dispatch(routes, 'POST', '/api/v1/listings/7/follow'), { ran: 'follow', params: { listing_id: '7' } });
  t.like(await dispatch(routes, 'DELETE', '/api/v1/listings/7/follow'), { ran: 'unfollow' });
  t.deepEqual(await dispatch(routes, 'OPTIONS', '/api/v1/listings/7/follow'), { status: 204, allow: 'POST, DELETE, OPTIONS' });
  t.deepEqual(await dispatch(routes, 'PROPFIND', '/api/v1/listings/7/follow'), { status: 405, allow: 'POST, DELETE, OPTIONS' });
  t.deepEqual(await dispatch(routes, 'PUT', '/api/v1'), { status: 405, allow: 'HEAD, GET, OPTIONS' });
  t.is((await dispatch(routes, 'GET', '/api/v1/nowhere')).status, 404);
});

test('a path named outright is not claimed by a later parameter route: Allow lists only its own methods', async (t) => {
  const routes = new Router();
  const scope = routes.scope();
  const route = (name: string) => (ctx: Koa.Context) => {
    ctx.body = { ran: name };
  };
  scope.add('POST', '/api/v1/orders/quote', route('quote'));
  scope.add('POST', '/api/v1/orders/checkout', route('checkout'));
  scope.add('GET', '/api/v1/orders/{number}', route('get order'));
  t.deepEqual(await dispatch(routes, 'OPTIONS', '/api/v1/orders/quote'), { status: 204, allow: 'POST, OPTIONS' });
  t.deepEqual(await dispatch(routes, 'GET', '/api/v1/orders/checkout/'), { status: 405, allow: 'POST, OPTIONS' });
  t.like(await dispatch(routes, 'POST', '/api/v1/orders/quote'), { ran: 'quote' });
  t.like(await dispatch(routes, 'GET', '/api/v1/orders/LD-1'), { ran: 'get order' });
  t.deepEqual(await dispatch(routes, 'OPTIONS', '/api/v1/orders/LD-1'), { status: 204, allow: 'HEAD, GET, OPTIONS' });
});

test('a scope runs its middleware before its routes, also for its 405s; routes outside it run without', async (t) => {
  const router = new Router();
  const tagged = router.scope([
    async (ctx, next) => {
      ctx.set('X-Scope', 'pages');
      try {
        await next();
      } catch (err) {
        // What a scope's error page does: its own answer for its routes' refusals.
        ctx.status = (err as { status?: number }).status ?? 500;
        ctx.body = { scoped: true };
      }
    },
  ]);
  tagged.get('/pages/{slug}', (ctx) => {
    ctx.body = { ran: 'page', params: ctx.params };
  });
  router.scope().get('/healthz', (ctx) => {
    ctx.body = { ran: 'health' };
  });
  const app = (path: string, method = 'GET') => dispatchHeaders(router, method, path);
  t.like(await app('/pages/a'), { status: 200, scope: 'pages', body: { ran: 'page', params: { slug: 'a' } } });
  t.like(await app('/pages/a', 'POST'), { status: 405, scope: 'pages', body: { scoped: true } });
  t.like(await app('/healthz'), { status: 200, scope: null, body: { ran: 'health' } });
});

test('ALL answers every method; a trailing /* takes the subtree below a path, not the path beside it', async (t) => {
  const router = new Router();
  const scope = router.scope();
  scope.add('ALL', '/oauth/*', (ctx) => {
    ctx.body = { ran: 'oauth', path: ctx.path };
  });
  scope.add('ALL', '/mcp', (ctx) => {
    ctx.body = { ran: 'mcp', method: ctx.method };
  });
  t.like(await dispatch(router, 'POST', '/oauth/token'), { ran: 'oauth', path: '/oauth/token' });
  t.like(await dispatch(router, 'GET', '/oauth/a/b/c'), { ran: 'oauth' });
  t.is((await dispatch(router, 'GET', '/oauthx/token')).status, 404);
  t.is((await dispatch(router, 'GET', '/oauth')).status, 404);
  t.like(await dispatch(router, 'DELETE', '/mcp'), { ran: 'mcp', method: 'DELETE' });
});

test('a route written with :name is refused when added, so a path never silently fails to match', (t) => {
  const scope = new Router().scope();
  t.throws(() => scope.get('/listings/:slug', () => {}), { message: /\{name\}, not :name/ });
});

async function dispatchHeaders(router: Router, method: string, path: string) {
  const app = new Koa();
  app.use(router.middleware());
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, { method });
    return { status: res.status, scope: res.headers.get('x-scope'), body: await res.json().catch(() => undefined) };
  } finally {
    server.close();
  }
}
