import test from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';

/**
 * Cases `npm run fuzz` (schemathesis) found: values the OpenAPI document called valid that the API
 * refused. Each test pins both sides: the document now rejects the value, and so does the API.
 */
let env: TestEnv;
let doc: any;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  doc = (await api(env, 'GET', '/openapi.json')).body;
});
test.after.always(() => env?.close());

/** The schema of one request-body property or query parameter, as the document states it. */
function documented(path: string, method: string, name: string): { pattern?: string; uniqueItems?: boolean; minLength?: number } {
  const op = doc.paths[path][method];
  const param = op.parameters.find((p: { name: string }) => p.name === name);
  return param ? param.schema : op.requestBody.content['application/json'].schema.properties[name];
}

const matches = (schema: { pattern?: string }, value: string) => new RegExp(schema.pattern!, 'u').test(value);

test('a body with required fields is documented as required: sending none is a 400', async (t) => {
  const { key } = await env.user();
  const updates = doc.paths['/me/listings/{listing_id}/updates'].post.requestBody;
  t.true(updates.required);
  const res = await api(env, 'POST', '/me/listings/1/updates', { key });
  t.is(res.status, 400);
  t.like(res.body, { code: 'validation_failed' });
  t.true(doc.paths['/me/interview'].put.requestBody.required);
  t.true(doc.paths['/drafts'].post.requestBody.required);
  // Every field optional: no body is a valid request, and the document says so.
  t.false(doc.paths['/me/founder-profile'].patch.requestBody.required);
  t.is((await api(env, 'PATCH', '/me/founder-profile', { key })).status, 200);
});

test('billing_country: the document rejects what the API rejects ("" was generated as valid)', async (t) => {
  const { key } = await env.user();
  const schema = documented('/orders/quote', 'post', 'billing_country');
  for (const bad of ['', '0', 'IRL', 'I1']) {
    t.false(matches(schema, bad), bad);
    const res = await api(env, 'POST', '/orders/quote', { key, body: { items: [{ product: 'x' }], billing_country: bad } });
    t.is(res.status, 400, bad);
    t.true(
      res.body.errors.some((e: { path: string }) => e.path === 'billing_country'),
      bad,
    );
  }
  for (const good of ['IE', 'ie', ' de ']) {
    t.true(matches(schema, good), good);
    const res = await api(env, 'POST', '/orders/quote', { key, body: { items: [{ product: 'x' }], billing_country: good } });
    t.false(
      (res.body.errors ?? []).some((e: { path: string }) => e.path === 'billing_country'),
      good,
    );
  }
});

test('week: the document rejects week 00 and years before 2000 ("0000-W00" was generated as valid)', async (t) => {
  const schema = documented('/leaderboards/community-weekly', 'get', 'week');
  for (const bad of ['0000-W00', '2026-W00', '2026-W54', '1999-W10']) {
    t.false(matches(schema, bad), bad);
    t.is((await api(env, 'GET', `/leaderboards/community-weekly?week=${bad}`)).status, 400, bad);
  }
  for (const good of ['2026-W01', '2026-W48', '2020-W53']) {
    t.true(matches(schema, good), good);
    t.is((await api(env, 'GET', `/leaderboards/community-weekly?week=${good}`)).status, 200, good);
  }
});

test('image_base64: the document rejects what is not base64 ("0" was generated as valid)', async (t) => {
  const { key } = await env.user();
  const schema = documented('/me/founder-profile/photo', 'put', 'image_base64');
  for (const bad of ['0', 'AAAAA', 'AAA==', 'a,b', 'data:x']) {
    t.false(matches(schema, bad), bad);
    const res = await api(env, 'PUT', '/me/founder-profile/photo', { key, body: { image_base64: bad } });
    t.is(res.status, 400, bad);
    t.like(res.body, { code: 'validation_failed' }, bad);
  }
  // Well-formed base64 that is no image: past the schema, refused as an image.
  for (const notAnImage of ['00', 'AAAA', 'AA==', 'data:image/png;base64,AAAA', 'AAAA\nAAAA']) {
    t.true(matches(schema, notAnImage), notAnImage);
    const res = await api(env, 'PUT', '/me/founder-profile/photo', { key, body: { image_base64: notAnImage } });
    t.is(res.status, 400, notAnImage);
    t.like(res.body, { code: 'unsupported_image' }, notAnImage);
  }
});

test('quote_order documents the 422 it answers for a VAT number of another country', async (t) => {
  const { key } = await env.user();
  t.truthy(doc.paths['/orders/quote'].post.responses['422']);
  const body = { billing_country: 'AA', items: [{ product: 'launch' }], vat_number: 'DE123456789' };
  const res = await api(env, 'POST', '/orders/quote', { key, body });
  t.is(res.status, 422);
  t.like(res.body, { code: 'vat_number_invalid' });
  // No country prefix at all ("0000" was generated as valid): the document's pattern refuses it, and so does the API.
  const schema = documented('/orders/quote', 'post', 'vat_number');
  t.false(matches(schema, '0000'));
  t.true(matches(schema, 'IE 6388047V'));
  const unprefixed = await api(env, 'POST', '/orders/quote', { key, body: { ...body, vat_number: '0000' } });
  t.is(unprefixed.status, 400);
  t.deepEqual(
    unprefixed.body.errors.map((e: { path: string }) => e.path),
    ['vat_number'],
  );
});

test('start_claim: the document says email goes with method email only ({"method":"dns","email":…} was generated as valid)', async (t) => {
  const { key } = await env.user();
  const schema = doc.paths['/claims'].post.requestBody.content['application/json'].schema;
  t.deepEqual(schema.anyOf[1].not, { required: ['email'] });
  t.is(schema.anyOf[0].properties.method.const, 'email');
  const res = await api(env, 'POST', '/claims', { key, body: { slug: 'x', method: 'dns', email: 'a@example.com' } });
  t.is(res.status, 400);
  t.deepEqual(res.body.errors, [{ path: 'email', message: 'Only for method email' }]);
});

test('set_founder_story: the document refuses an older section name with its current one (story + how_started was generated as valid)', async (t) => {
  const { key } = await env.user();
  const schema = doc.paths['/me/listings/{listing_id}/story'].put.requestBody.content['application/json'].schema;
  t.true(schema.not.anyOf.some((rule: { required: string[] }) => rule.required.includes('story') && rule.required.includes('how_started')));
  const res = await api(env, 'PUT', '/me/listings/1/story', { key, body: { story: '', how_started: '' } });
  t.is(res.status, 400);
  t.true(res.body.errors.some((e: { path: string }) => e.path === 'story'));
});

test('an empty Idempotency-Key is a 400, as the documented minLength 1 says (it was read as no key)', async (t) => {
  const { key } = await env.user();
  t.is(doc.paths['/me/founder-profile'].patch.parameters.find((p: { name: string }) => p.name === 'Idempotency-Key').schema.minLength, 1);
  const res = await api(env, 'PATCH', '/me/founder-profile', { key, body: { display_name: 'Keyed' }, headers: { 'idempotency-key': '' } });
  t.is(res.status, 400);
  t.is(res.body.code, 'invalid_idempotency_key');
  t.deepEqual(
    res.body.errors.map((e: { path: string }) => e.path),
    ['Idempotency-Key'],
  );
  const profile = await api(env, 'GET', '/me/founder-profile', { key });
  t.is(profile.body.display_name, null);
});

test('founder links: the document says they are unique, as the API requires (four equal links were generated as valid)', async (t) => {
  const { key } = await env.user();
  t.true(documented('/me/founder-profile', 'patch', 'links').uniqueItems);
  const res = await api(env, 'PATCH', '/me/founder-profile', { key, body: { links: ['https://0.com', 'https://0.com'] } });
  t.is(res.status, 400);
  t.deepEqual(res.body.errors, [{ path: 'links.1', message: 'Same link as links.0' }]);
});

test('create_draft: the document says site is never empty', async (t) => {
  t.is(documented('/drafts', 'post', 'site').minLength, 1);
});

test('quote_order: the document names the products (product "0" was generated as valid)', async (t) => {
  const { key } = await env.user();
  const item = doc.paths['/orders/quote'].post.requestBody.content['application/json'].schema.properties.items.items;
  t.deepEqual(item.properties.product.enum, ['launch', 'featured', 'categories', 'billboard', 'unlock_section']);
  const res = await api(env, 'POST', '/orders/quote', { key, body: { items: [{ product: '0' }], billing_country: 'IE' } });
  t.is(res.status, 400);
  t.deepEqual(res.body.errors, [{ path: 'items.0.product', message: 'Unknown product "0"; see list_products' }]);
});
