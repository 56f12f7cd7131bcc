import test from 'ava';
import { api, request, startTestEnv, type TestEnv } from '../helpers/env.ts';

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const profile = (key: string, body: unknown, contentType: string) =>
  api(env, 'PATCH', '/me/founder-profile', { key, body, headers: { 'content-type': contentType } });
const displayName = async (key: string) => (await api(env, 'GET', '/me/founder-profile', { key })).body.display_name;

test('every +json media type is read as JSON: merge-patch+json changes the profile', async (t) => {
  const owner = await env.user();
  for (const [type, name] of [
    ['application/merge-patch+json', 'Merge Patch'],
    ['application/vnd.example+json; charset=utf-8', 'Vendor Json'],
    ['application/json', 'Plain Json'],
  ]) {
    const res = await profile(owner.key, { display_name: name }, type!);
    t.is(res.status, 200, type);
    t.is(res.body.display_name, name, type);
    t.is(await displayName(owner.key), name, type);
  }
  // create_draft reads its url from a +json body too (the address check answers, not "url is missing").
  const draft = await api(env, 'POST', '/drafts', {
    key: owner.key,
    body: { url: 'ftp://example.com/' },
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  t.is(draft.status, 400);
  t.deepEqual(
    draft.body.errors.map((e: { path: string; message: string }) => [e.path, e.message.includes('Required')]),
    [['url', false]],
  );
});

test('a body of another media type is a 415 problem and changes nothing', async (t) => {
  const owner = await env.user();
  await profile(owner.key, { display_name: 'Before' }, 'application/json');
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
    const res = await profile(owner.key, '{"display_name":"After"}', type);
    t.is(res.status, 415, type);
    t.is(res.headers.get('content-type'), 'application/problem+json');
    t.is(res.body.code, 'unsupported_media_type');
    t.is(res.body.title, 'Unsupported media type');
    t.true(res.body.detail.includes(type), res.body.detail);
  }
  const untyped = await api(env, 'PATCH', '/me/founder-profile', {
    key: owner.key,
    body: '{"display_name":"After"}',
    headers: { 'content-type': '' },
  });
  t.is(untyped.status, 415);
  t.regex(untyped.body.detail, /no Content-Type/);
  t.is(await displayName(owner.key), 'Before');
});

test('a body that is not a JSON object says so in the caller’s terms', async (t) => {
  const owner = await env.user();
  for (const [body, got] of [
    ['null', 'null'],
    ['[1, 2]', 'an array'],
    ['42', 'a number'],
    ['"text"', 'a string'],
  ]) {
    const res = await profile(owner.key, body, 'application/json');
    t.is(res.status, 400, body);
    t.is(res.body.code, 'validation_failed');
    t.is(res.body.detail, `The request body must be a JSON object, not ${got}.`);
    t.deepEqual(res.body.errors, [{ path: '(body)', message: `Must be a JSON object, not ${got}` }]);
  }
  const broken = await profile(owner.key, '{"display_name": ', 'application/json');
  t.is(broken.status, 400);
  t.is(broken.body.code, 'invalid_json');
  t.is(broken.body.title, 'Invalid JSON');
  // An empty body is an empty object: nothing to change, the profile as it is.
  const empty = await profile(owner.key, '', 'application/json');
  t.is(empty.status, 200);
});

test('a body over the operation’s limit is a 413 before it is parsed; the photo route has its own larger limit', async (t) => {
  const owner = await env.user();
  const big = JSON.stringify({ bio: 'x'.repeat(1024 * 1024) });
  const res = await profile(owner.key, big, 'application/json');
  t.is(res.status, 413);
  t.is(res.body.code, 'payload_too_large');
  t.is(res.body.detail, 'The request body is larger than 1 MB.');
  // Even when the body type is +json and it is sent without a Content-Length (chunked).
  const photo = await api(env, 'PUT', '/me/founder-profile/photo', { key: owner.key, body: { image_base64: 'A'.repeat(9 * 1024 * 1024) } });
  t.is(photo.status, 413);
  t.is(photo.body.code, 'image_too_large');
  t.is(photo.body.detail, 'The photo is larger than 5 MB.');
  t.is(await displayName(owner.key), null);
});

test('out-of-range numbers name the field’s own limit, not JavaScript’s', async (t) => {
  for (const page of ['99999999999999999999', '1e30', '-99999999999999999999']) {
    const res = await api(env, 'GET', `/listings?page=${page}`);
    t.is(res.status, 400, page);
    t.is(res.body.code, 'validation_failed');
    t.deepEqual(
      res.body.errors.map((e: { path: string }) => e.path),
      ['page'],
      page,
    );
    t.false(JSON.stringify(res.body).includes('9007199254740991'), JSON.stringify(res.body));
  }
  const res = await api(env, 'GET', '/listings?page=99999999999999999999');
  t.regex(res.body.errors[0].message, /100000/);
});

test('GET /api and /api/v1 answer a JSON index of the operations, unknown API paths a problem', async (t) => {
  for (const path of ['/api', '/api/', '/api/v1', '/api/v1/']) {
    const res = await request(env, 'GET', path);
    t.is(res.status, 200, path);
    t.regex(res.headers.get('content-type')!, /^application\/json/, path);
    t.is(res.body.openapi, `${env.baseUrl}/api/v1/openapi.json`);
    t.true(
      res.body.operations.some(
        (o: { name: string; method: string; path: string }) =>
          o.name === 'create_draft' && o.method === 'POST' && o.path === '/api/v1/drafts',
      ),
    );
  }
  const missing = await request(env, 'GET', '/api/v2/nothing');
  t.is(missing.status, 404);
  t.is(missing.headers.get('content-type'), 'application/problem+json');
  t.is(missing.body.code, 'not_found');
});

test('an MCP message over the largest operation limit is a 413 from the same body reader', async (t) => {
  const message = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'list_sites', arguments: { x: 'y'.repeat(9 * 1024 * 1024) } },
  };
  const res = await request(env, 'POST', '/mcp', { body: message, headers: { accept: 'application/json, text/event-stream' } });
  t.is(res.status, 413);
  t.is(res.body.code, 'payload_too_large');
  t.regex(res.body.detail, /^The MCP message is larger than 8\.1 MB\.$/);
});

const nested = (levels: number) => '{"display_name":"Deep","x":' + '['.repeat(levels) + ']'.repeat(levels) + '}';

test('a body nested deeper than 64 levels is a 400 before anything walks it; 64 levels are read', async (t) => {
  const owner = await env.user();
  for (const levels of [64, 8_000, 200_000]) {
    const res = await profile(owner.key, nested(levels), 'application/json');
    t.is(res.status, 400, String(levels));
    t.is(res.body.code, 'validation_failed');
    t.deepEqual(res.body.errors, [{ path: '(body)', message: 'Must not nest arrays and objects deeper than 64 levels' }]);
  }
  // 63 levels inside the body object are 64 in all: refused by the schema (unknown field), not by depth.
  const allowed = await profile(owner.key, nested(63), 'application/json');
  t.is(allowed.status, 400);
  t.deepEqual(allowed.body.errors, [{ path: 'x', message: 'Unknown field "x"' }]);
  // A free-form field (an order item's options) took the deep value past the schema: ~8,000 levels overflowed the string guard (500).
  const options =
    '{"items":[{"product":"featured","listing_id":1,"options":{"x":' +
    '['.repeat(8_000) +
    ']'.repeat(8_000) +
    '}}],"billing_country":"IE"}';
  const quote = await api(env, 'POST', '/orders/quote', { key: owner.key, body: options });
  t.is(quote.status, 400);
  t.deepEqual(quote.body.errors, [{ path: '(body)', message: 'Must not nest arrays and objects deeper than 64 levels' }]);
  // Brackets inside strings are text, not nesting.
  const text = await profile(owner.key, JSON.stringify({ display_name: '[{'.repeat(100) + '\\"[' }), 'application/json');
  t.is(text.status, 400);
  t.false(JSON.stringify(text.body.errors).includes('deeper'));
});

test('an MCP message nested deeper than 64 levels (inside its envelope) is a 400 too', async (t) => {
  const owner = await env.user();
  const deep = '['.repeat(8_000) + ']'.repeat(8_000);
  const args = `{"items":[{"product":"featured","listing_id":1,"options":{"x":${deep}}}],"billing_country":"IE"}`;
  const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"quote_order","arguments":${args}}}`;
  const res = await request(env, 'POST', '/mcp', {
    key: owner.key,
    body,
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
  });
  t.is(res.status, 400);
  t.is(res.body.code, 'validation_failed');
  t.regex(res.body.detail, /^The MCP message nests arrays and objects deeper than 66 levels\.$/);
});

test('a string that is not well-formed Unicode is a 400 naming the field, on REST and MCP', async (t) => {
  const owner = await env.user();
  const res = await profile(owner.key, '{"display_name":"Lone \\ud800 surrogate"}', 'application/json');
  t.is(res.status, 400);
  t.is(res.body.code, 'validation_failed');
  t.deepEqual(res.body.errors, [{ path: 'display_name', message: 'Must be well-formed Unicode (no lone surrogate such as \\ud800)' }]);
  // A pair is a character like any other.
  const pair = await profile(owner.key, '{"display_name":"Rocket \\ud83d\\ude80"}', 'application/json');
  t.is(pair.status, 200);
  t.is(pair.body.display_name, 'Rocket 🚀');
  const mcp = await request(env, 'POST', '/mcp', {
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_listings","arguments":{"q":"\\udfff"}}}',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
  });
  t.is(mcp.status, 200);
  t.regex(JSON.stringify(mcp.body), /well-formed Unicode/);
});

test('a page form goes through the same body reader: up to 64 KiB read, a larger one is invalid_form (400), never a 500', async (t) => {
  const post = (body: string) =>
    fetch(`${env.baseUrl}/signin`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  // Without a session's CSRF token a form that was read is refused by the CSRF check (403) ...
  const read = await post(`email=a%40example.com&password=${'p'.repeat(1000)}`);
  t.is(read.status, 403);
  // ... one over the limit is refused before, as a form that cannot be read.
  const tooLarge = await post(`email=a%40example.com&password=${'p'.repeat(70 * 1024)}`);
  t.is(tooLarge.status, 400);
  t.regex(await tooLarge.text(), /reload the page/);
});
