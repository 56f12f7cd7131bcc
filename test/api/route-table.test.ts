import test from 'ava';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { RouteTable } from '../../src/api/route-table.ts';
import { AppError } from '../../src/errors.ts';

/** What one request to a table answers over HTTP: the route that ran and its params, or the status and Allow. */
async function dispatch(table: RouteTable, method: string, path: string) {
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

function table(): RouteTable {
  const t = new RouteTable();
  const route = (name: string) => (ctx: Koa.Context, params: Record<string, string>) => {
    ctx.body = { ran: name, params };
  };
  t.add('GET', '/api/v1/listings/{listing_id}', route('get listing'));
  t.add('GET', '/api/v1/listings/mine', route('mine'));
  t.add('POST', '/api/v1/listings/{listing_id}/follow', route('follow'));
  t.add('DELETE', '/api/v1/listings/{listing_id}/follow', route('unfollow'));
  t.add('GET', '/api/v1', route('index'));
  return t;
}

test('routes match in the order added, case-insensitive, with one optional trailing slash', async (t) => {
  const routes = table();
  t.like(await dispatch(routes, 'GET', '/api/v1/listings/12'), { ran: 'get listing', params: { listing_id: '12' } });
  // The parameter route was added first, so it takes /listings/mine as @koa/router did.
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
  const routes = new RouteTable();
  const route = (name: string) => (ctx: Koa.Context) => {
    ctx.body = { ran: name };
  };
  routes.add('POST', '/api/v1/orders/quote', route('quote'));
  routes.add('POST', '/api/v1/orders/checkout', route('checkout'));
  routes.add('GET', '/api/v1/orders/{number}', route('get order'));
  t.deepEqual(await dispatch(routes, 'OPTIONS', '/api/v1/orders/quote'), { status: 204, allow: 'POST, OPTIONS' });
  t.deepEqual(await dispatch(routes, 'GET', '/api/v1/orders/checkout/'), { status: 405, allow: 'POST, OPTIONS' });
  t.like(await dispatch(routes, 'POST', '/api/v1/orders/quote'), { ran: 'quote' });
  t.like(await dispatch(routes, 'GET', '/api/v1/orders/LD-1'), { ran: 'get order' });
  t.deepEqual(await dispatch(routes, 'OPTIONS', '/api/v1/orders/LD-1'), { status: 204, allow: 'HEAD, GET, OPTIONS' });
});
