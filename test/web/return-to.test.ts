import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { safeReturnTo } from '../../src/web/return-to.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { WebClient } from '../helpers/web.ts';

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  await createVerifiedUser(env.services.db, 'traveller@example.com', PASSWORD);
});
test.after.always(() => env?.close());

const PASSWORD = 'a fine long password';

const OPEN_REDIRECTS = [
  'https://evil.example/',
  'http://evil.example',
  '//evil.example/path',
  '/\\evil.example',
  '\\/evil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  ' //evil.example',
  'javascript:alert(1)',
  'data:text/html,hi',
  '///evil.example',
  'evil.example',
  '',
  // Dot segments that normalize to a protocol-relative `//host` (an open redirect once found here).
  '/.//evil.example/phish',
  '/..//evil.example',
  '/a/..//evil.example',
  '/%2e//evil.example',
  '/%2E%2E//evil.example',
  '/a/b/%2e%2e/%2e%2e//evil.example',
  '/./\\evil.example',
  '/.\t//evil.example',
];

/** Values that look dangerous but are same-site paths once sent (encoded slashes stay encoded). */
const HARMLESS = [
  ['/%2f%2fevil.example', '/%2f%2fevil.example'],
  ['/%5c%5cevil.example', '/%5c%5cevil.example'],
  ['/a/./b/../c', '/a/c'],
];

test('safeReturnTo keeps same-site paths and refuses everything else', (t) => {
  t.is(safeReturnTo('/consent/abc?x=1#y'), '/consent/abc?x=1#y');
  t.is(safeReturnTo('/account/keys'), '/account/keys');
  t.is(safeReturnTo('/a/../account'), '/account');
  // Percent-encoded line breaks stay encoded: a harmless same-site path, no header injection.
  t.is(safeReturnTo('/%0d%0aSet-Cookie:x=y'), '/%0d%0aSet-Cookie:x=y');
  for (const evil of OPEN_REDIRECTS) t.is(safeReturnTo(evil), '/account', JSON.stringify(evil));
  t.is(safeReturnTo(['/a', '/b']), '/account');
  t.is(safeReturnTo(undefined, '/x'), '/x');
  t.is(safeReturnTo(`/${'a'.repeat(3000)}`), '/account');
  for (const [value, sent] of HARMLESS) t.is(safeReturnTo(value), sent, value);
});

test('a signed-in visitor is never forwarded off-site by a dot-segment return_to', async (t) => {
  const client = new WebClient(env.baseUrl);
  await client.signIn('traveller@example.com', PASSWORD);
  for (const evil of OPEN_REDIRECTS) {
    const res = await client.get(`/signin?return_to=${encodeURIComponent(evil)}`);
    t.is(res.status, 302, JSON.stringify(evil));
    t.is(res.location, '/account', JSON.stringify(evil));
  }
  // Whatever is sent must resolve to this site, as a browser would resolve it.
  for (const [value] of HARMLESS) {
    const location = (await client.get(`/signin?return_to=${encodeURIComponent(value)}`)).location!;
    t.is(new URL(location, env.baseUrl).origin, new URL(env.baseUrl).origin, value);
  }
});

test('sign-in goes back to a same-site return_to', async (t) => {
  const client = new WebClient(env.baseUrl);
  const res = await client.signIn('traveller@example.com', PASSWORD, '/consent/some-uid?step=2');
  t.is(res.status, 303);
  t.is(res.headers.get('location'), '/consent/some-uid?step=2');
  // Signed in already: the sign-in page forwards at once, again only to a safe target.
  t.is((await client.get('/signin?return_to=%2Faccount%2Fkeys')).location, '/account/keys');
  t.is((await client.get('/signin?return_to=https%3A%2F%2Fevil.example')).location, '/account');
});

test('open-redirect attempts in return_to are ignored on the page and on the form', async (t) => {
  for (const evil of OPEN_REDIRECTS) {
    const client = new WebClient(env.baseUrl);
    const page = await client.get(`/signin?return_to=${encodeURIComponent(evil)}`);
    t.is(page.status, 200);
    t.is(page.$('input[name=return_to]').length, 0, `no hidden field for ${JSON.stringify(evil)}`);
    const res = await client.signIn('traveller@example.com', PASSWORD, evil);
    t.is(res.status, 303);
    t.is(res.headers.get('location'), '/account', JSON.stringify(evil));
  }
});

test('a protected page sends an anonymous visitor to sign in and back', async (t) => {
  const client = new WebClient(env.baseUrl);
  const first = await client.get('/account/keys?x=1');
  t.is(first.status, 303);
  t.is(first.location, '/signin?return_to=%2Faccount%2Fkeys%3Fx%3D1');
  const form = await client.get(first.location!);
  t.is(form.$('input[name=return_to]').val(), '/account/keys?x=1');
  const done = await client.signIn('traveller@example.com', PASSWORD, '/account/keys?x=1');
  t.is(done.location, '/account/keys?x=1');
  t.is((await client.get('/account/keys?x=1')).status, 200);
});
