import test from 'ava';
import { operations } from '../../src/operations/index.ts';
import { api, request, startTestEnv, type TestEnv } from '../helpers/env.ts';

let env: TestEnv;
let key: string;
/** Error log lines of requests (`unhandled error` must never appear for a method). */
const errorLogs: unknown[] = [];
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  key = (await env.user()).key;
  const log = env.services.log;
  const child = log.child.bind(log);
  log.child = ((...args: Parameters<typeof log.child>) => {
    const logger = child(...args);
    const error = logger.error.bind(logger);
    logger.error = ((...line: unknown[]) => {
      errorLogs.push(line);
      return (error as (...a: unknown[]) => void)(...line);
    }) as typeof logger.error;
    return logger;
  }) as typeof log.child;
});
test.after.always(() => env?.close());

const ODD_METHODS = ['TRACE', 'PROPFIND', 'PROPPATCH', 'MKCOL', 'LOCK', 'UNLOCK', 'COPY', 'MOVE', 'SEARCH', 'PURGE', 'LINK', 'REPORT'];

/** What `Allow` must say for a registry path: its operations' methods, HEAD with GET, OPTIONS. */
/**
 * Methods of the registry routes the concrete `url` matches: those naming it outright when any do
 * (`/orders/quote` is not also `/orders/{number}`), else every parameter route matching it.
 */
function allowOf(url: string): string[] {
  const matches = (path: string) => new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`).test(url);
  const named = operations.filter((op) => op.path === url);
  const served = named.length ? named : operations.filter((op) => matches(op.path));
  const methods = [...new Set(served.map((op) => op.method))];
  return [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'];
}

function assertMethodProblem(
  t: import('ava').ExecutionContext,
  res: { status: number; headers: Headers; body: any },
  allow: string[],
  what: string,
) {
  t.is(res.status, 405, what);
  t.regex(res.headers.get('content-type') ?? '', /^application\/problem\+json/, what);
  t.is(res.body.code, 'method_not_allowed', what);
  t.deepEqual(res.headers.get('allow')?.split(', ').sort(), [...allow].sort(), what);
}

test('TRACE, PROPFIND and other unknown methods on REST paths are 405 problems with Allow, never 500', async (t) => {
  for (const method of ODD_METHODS) {
    // A WebDAV-style body (with its length: Node frames bodies of these methods only when told).
    const body = method === 'TRACE' ? undefined : '<propfind xmlns="DAV:"/>';
    const headers: Record<string, string> = body ? { 'content-type': 'text/xml', 'content-length': String(body.length) } : {};
    const res = await api(env, method, '/listings', { headers, body });
    assertMethodProblem(t, res, allowOf('/listings'), `${method} /listings`);
    t.regex(res.body.detail, new RegExp(`^${method} is not allowed here`));
  }
  const authed = await api(env, 'TRACE', '/me/listings/1', { key });
  assertMethodProblem(t, authed, allowOf('/me/listings/1'), 'TRACE /me/listings/1');
  t.deepEqual(errorLogs, []);
});

test('every 405 of the REST API carries Allow; OPTIONS answers it', async (t) => {
  // Every registry path, with a method none of its operations has.
  for (const path of new Set(operations.map((op) => op.path))) {
    const url = path.replace(/\{\w+\}/g, '1');
    const allow = allowOf(url);
    const other = ['PUT', 'DELETE', 'PATCH', 'POST'].find((m) => !allow.includes(m))!;
    const body = other === 'DELETE' ? undefined : {};
    assertMethodProblem(t, await api(env, other, url, { key, body }), allow, `${other} ${path}`);
  }
  // /orders/quote and /orders/checkout are POST only, though /orders/{number} has GET.
  for (const path of ['/orders/quote', '/orders/checkout']) {
    const res = await api(env, 'OPTIONS', path, { key });
    t.is(res.status, 204, path);
    t.is(res.headers.get('allow'), 'POST, OPTIONS', path);
    assertMethodProblem(t, await api(env, 'GET', path, { key }), ['POST', 'OPTIONS'], `GET ${path}`);
  }
  const options = await api(env, 'OPTIONS', '/products');
  t.is(options.status, 204);
  t.deepEqual(options.headers.get('allow')?.split(', ').sort(), allowOf('/products').sort());
  // Paths that do not exist stay 404 whatever the method; the routes themselves still work.
  t.is((await api(env, 'TRACE', '/no-such-thing')).status, 404);
  t.is((await api(env, 'GET', '/products')).status, 200);
  t.deepEqual(errorLogs, []);
});

test('TRACE, PROPFIND and other unknown methods on /mcp are 405 problems with Allow, never 500', async (t) => {
  for (const method of [...ODD_METHODS, 'PUT', 'PATCH', 'HEAD']) {
    const res = await request(env, method, '/mcp', { headers: { accept: 'application/json, text/event-stream' } });
    t.is(res.status, 405, method);
    t.deepEqual(res.headers.get('allow')?.split(', ').sort(), ['DELETE', 'GET', 'OPTIONS', 'POST'], method);
    if (method === 'HEAD') continue; // no body on HEAD
    t.regex(res.headers.get('content-type') ?? '', /^application\/problem\+json/, method);
    t.is(res.body.code, 'method_not_allowed', method);
  }
  t.deepEqual(errorLogs, []);
});
