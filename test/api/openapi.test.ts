import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { operations } from '../../src/operations/index.ts';
import { ERROR_CODES } from '../../src/errors/errors.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

test('the served OpenAPI document passes redocly lint with zero errors', async (t) => {
  const res = await api(env, 'GET', '/openapi.json');
  t.is(res.status, 200);
  t.is(res.body.openapi, '3.1.0');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'openapi-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'openapi.json');
  await fs.writeFile(file, JSON.stringify(res.body));
  const result = await run(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'),
      'lint',
      file,
      '--config',
      path.join(ROOT, 'redocly.yaml'),
      '--format',
      'json',
    ],
    { cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, maxBuffer: 20e6 },
  ).catch((err: { stdout: string; stderr: string }) => err);
  const report = JSON.parse(result.stdout);
  const errors = report.problems.filter((p: { severity: string }) => p.severity === 'error');
  t.deepEqual(errors, []);
});

test('every registry operation is a documented route, and nothing else is', async (t) => {
  const doc = (await api(env, 'GET', '/openapi.json')).body;
  const documented = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>)
    .flatMap((item) => Object.values(item).map((op) => op.operationId))
    .sort();
  t.deepEqual(documented, operations.map((op) => op.name).sort());
  const createDraft = doc.paths['/drafts'].post;
  t.deepEqual(createDraft.security, [{ bearerAuth: ['listings:write'] }]);
  t.truthy(createDraft.parameters.find((p: { name: string }) => p.name === 'Idempotency-Key'));
  t.truthy(createDraft.responses['400']);
});

test('each operation documents exactly the error statuses it can answer, by their codes', async (t) => {
  const doc = (await api(env, 'GET', '/openapi.json')).body;
  const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses).sort();
  t.deepEqual(statuses('/drafts', 'post'), ['201', '400', '401', '403', '409', '413', '415', '422', '429', '500', '503']);
  t.deepEqual(statuses('/sites', 'get'), ['200', '400', '500', '503']);
  t.deepEqual(statuses('/me/founder-profile', 'get'), ['200', '400', '401', '403', '500', '503']);
  t.deepEqual(statuses('/listings/{slug}', 'get'), ['200', '400', '404', '500', '503']);
  const photo = doc.paths['/me/founder-profile/photo'].put.responses;
  t.is(photo['413'].description, 'The body is larger than 8 MB (`image_too_large`)');
  t.is(doc.paths['/me/founder-profile'].patch.responses['413'].description, 'The body is larger than 1 MB (`payload_too_large`)');
  t.is(photo['503'].description, '`database_unavailable` (Service unavailable)');
  t.deepEqual(photo['503']['x-error-codes'], ['database_unavailable']);
  const quote = doc.paths['/orders/quote'].post;
  t.deepEqual(quote.responses['409']['x-error-codes'], ['sold_out', 'not_live_in_week']);
  t.deepEqual(quote.responses['422']['x-error-codes'], ['order_item_refused', 'promo_code_invalid', 'vat_number_invalid']);
  t.true(quote['x-error-codes'].includes('sold_out'));
  t.true(quote['x-error-codes'].includes('unauthorized'));
  const key = doc.paths['/drafts'].post.parameters.find((p: { name: string }) => p.name === 'Idempotency-Key');
  t.like(key.schema, { type: 'string', minLength: 1, maxLength: 255 });
});

test('the document states the real URL and text rules and the "at least one of" rule', async (t) => {
  const doc = (await api(env, 'GET', '/openapi.json')).body;
  const body = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/json'].schema;
  const url = body('/drafts', 'post').properties.url;
  t.like(url, { type: 'string', minLength: 1, maxLength: 2048 });
  t.true(new RegExp(url.pattern).test('http://example.com/'));
  t.true(new RegExp(url.pattern).test('example.org'), 'a website without a scheme is taken (https:// is added)');
  t.false(new RegExp(url.pattern).test('ftp://example.com/'), 'another scheme is refused by the pattern too');
  t.false(new RegExp(url.pattern).test('https://user:pw@example.com/'), 'credentials are refused by the pattern too');
  const link = body('/me/founder-profile', 'patch').properties.links.items;
  t.false(new RegExp(link.pattern).test('http://example.com/'), 'https only, stated');
  t.true(new RegExp(link.pattern).test('https://example.com/'));
  const title = body('/me/listings/{listing_id}/updates', 'post').properties.title;
  t.false(new RegExp(title.pattern).test('a\u0085b'));
  t.deepEqual(body('/me/listings/{listing_id}', 'patch').anyOf, [
    { required: ['fields'] },
    { required: ['socials'] },
    { required: ['faqs'] },
    { required: ['categories'] },
  ]);
  t.false(JSON.stringify(doc).includes('\\\\p{'), 'no Unicode property classes');
});

test('the whole error catalogue is the enum ErrorCode, and every code an operation lists is in it', async (t) => {
  const doc = (await api(env, 'GET', '/openapi.json')).body;
  const { enum: codes, 'x-enum-descriptions': descriptions } = doc.components.schemas.ErrorCode;
  t.deepEqual(codes, ERROR_CODES);
  t.is(descriptions.sold_out, '409 Sold out: Choose another week or date; `available` names the next one with room.');
  t.deepEqual(doc.components.schemas.Problem.properties.code, { $ref: '#/components/schemas/ErrorCode' });
  for (const item of Object.values(doc.paths as Record<string, Record<string, { 'x-error-codes': string[] }>>)) {
    for (const op of Object.values(item)) for (const code of op['x-error-codes']) t.true(codes.includes(code), code);
  }
});
