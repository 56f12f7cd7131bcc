import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import Koa from 'koa';
import pino from 'pino';
import { problemErrors } from '../../src/api/middleware/errors.ts';
import { createDb } from '../../src/db/knex.ts';
import { knownError } from '../../src/errors/errors.ts';
import { freePort } from '../helpers/env.ts';

/**
 * A database that is restarting is not a bug of ours: the caller gets 503 database_unavailable
 * with Retry-After (and retries), not 500 internal_error. The errors here are pg's own, from a
 * real connection attempt.
 */
async function queryError(connectionString: string): Promise<unknown> {
  const db = createDb(connectionString, 1);
  try {
    await db.raw('SELECT 1');
    return null;
  } catch (err) {
    return err;
  } finally {
    await db.destroy();
  }
}

/** A server that accepts connections and hangs up at once, as a PostgreSQL that is shutting down. */
async function hangingUpServer() {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

test('a refused connection and a cut connection are database_unavailable', async (t) => {
  const refused = await queryError(`postgres://u:p@127.0.0.1:${await freePort()}/x`);
  t.like(knownError(refused), { status: 503, code: 'database_unavailable', headers: { 'Retry-After': '5' } });
  const server = await hangingUpServer();
  t.teardown(server.close);
  const cut = await queryError(`postgres://u:p@127.0.0.1:${server.port}/x`);
  t.like(knownError(cut), { status: 503, code: 'database_unavailable' });
});

test('a statement cut by a restart is database_unavailable, as knex words it', async (t) => {
  // What the load test's PostgreSQL restart left in the log as 500s before this was matched.
  const cut = new Error('select "key" from "products" where "site_id" = $1 - Connection terminated unexpectedly');
  t.like(knownError(cut), { status: 503, code: 'database_unavailable' });
  t.like(knownError(new Error('BEGIN; - Connection terminated unexpectedly')), { code: 'database_unavailable' });
});

test('a bad query stays an internal error', async (t) => {
  t.is(knownError(Object.assign(new Error('syntax error at or near "SELEC"'), { code: '42601' })), null);
  t.is(knownError(new TypeError('x is undefined')), null);
});

test('over HTTP the problem is 503 with Retry-After and no detail of the cause', async (t) => {
  const app = new Koa();
  app.use(async (ctx, next) => {
    ctx.state.log = pino({ level: 'silent' });
    ctx.state.requestId = 'req-1';
    await next();
  });
  app.use(problemErrors('http://127.0.0.1'));
  const port = await freePort();
  const db = createDb(`postgres://u:p@127.0.0.1:${port}/x`, 1);
  t.teardown(() => db.destroy());
  app.use(async (ctx) => {
    ctx.body = await db.raw('SELECT 1');
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  t.is(res.status, 503);
  t.is(res.headers.get('retry-after'), '5');
  t.is(res.headers.get('content-type'), 'application/problem+json');
  const problem = await res.json();
  t.like(problem, { status: 503, code: 'database_unavailable', request_id: 'req-1' });
  t.notRegex(JSON.stringify(problem), /ECONNREFUSED|127\.0\.0\.1:\d+/);
});
